/**
 * OpenAI Codex CLI, in its three shapes (docs/formats/codex.md), each read by its own reader into
 * one loop assembler (loopAssembler.ts):
 *
 * - session rollouts (`~/.codex/sessions/YYYY/MM/DD/rollout-<ts>-<uuid>.jsonl`): every line is
 *   `{timestamp, type, payload}` (rolloutReader.ts);
 * - `codex exec --json` stdout: `thread.started` / `turn.*` / `item.*` events (execReader.ts);
 * - the older `codex exec --json` stdout: `{id, msg: {type, …}}` events, before Codex 0.44
 *   (legacyExecReader.ts).
 */
import { isRecord, type Emit, type FormatAdapter, type FormatMapper } from '../formatAdapter';
import { detectShape, isExecEvent, isLegacyConfigLine, isLegacyEvent, isRolloutRecord } from './detect';
import { ExecReader } from './execReader';
import { LegacyExecReader } from './legacyExecReader';
import type { Reader } from './readerBasics';
import { RolloutReader } from './rolloutReader';

/** The reader of the file's shape, chosen by its first record (a stream may open with an `error` or a settings line). */
function readerFor(value: unknown, emit: Emit, path: string): Reader | null {
  if (isRolloutRecord(value)) return new RolloutReader(emit, path);
  if (isRecord(value) && (isExecEvent(value) || value['type'] === 'error')) return new ExecReader(emit, path);
  if (isRecord(value) && (isLegacyEvent(value) || typeof value['prompt'] === 'string' || isLegacyConfigLine(value))) return new LegacyExecReader(emit, path);
  return null;
}

/** Codex CLI rollouts and `codex exec --json` streams. */
export const codexFormat: FormatAdapter = {
  name: 'codex',
  detect(sample) {
    return detectShape(sample)?.reason ?? null;
  },
  createMapper(context): FormatMapper {
    let reader: Reader | null = null;
    let emitter: Emit = () => {};
    const emit: Emit = (mapped) => emitter(mapped);
    return {
      map(value, line, out) {
        emitter = out;
        if (reader === null) {
          reader = readerFor(value, emit, context.path);
          if (reader === null) return { reason: 'not a Codex record: neither a rollout {timestamp, type, payload} nor a codex exec --json event' };
        }
        return reader.map(value, line);
      },
      finish(out) {
        emitter = out;
        reader?.finish();
      },
    };
  },
};
