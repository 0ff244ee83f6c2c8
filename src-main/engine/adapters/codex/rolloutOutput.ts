/**
 * What a Codex rollout's tool output says of its call (whether it failed, how long it ran), read
 * from the output's text: rollouts write no error flag and no run time of their own.
 */
import { isRecord } from '../formatAdapter';
import { finite } from '../kit/jsonValues';
import { firstLine, type ToolError } from './readerBasics';

const failurePrefixes: readonly [RegExp, string][] = [
  [/^failed in sandbox/i, 'sandbox_failure'],
  [/^execution error/i, 'execution_error'],
  [/^(exec command|command|patch) rejected by user/i, 'rejected_by_user'],
  [/^apply_patch verification failed/i, 'patch_failed'],
  [/^aborted( by user)?\.?$/i, 'aborted'],
];

/** What a rollout tool output says of its call: whether it failed, and how long it ran. */
interface RolloutOutputFacts {
  error: ToolError | undefined;
  latencyMs: number | undefined;
}

/** Seconds as written by Codex, in milliseconds (to the microsecond, so 1.1 s is 1100 ms, not 1100.0000000000002); nothing for a value that is no duration. */
function secondsToMillis(seconds: number | undefined): number | undefined {
  return seconds !== undefined && seconds >= 0 ? Math.round(seconds * 1e6) / 1e3 : undefined;
}

/**
 * A rollout tool output has no error flag: 0.40 `shell` writes a JSON string with
 * `metadata.exit_code`; `exec_command` writes a `Process exited with code N` header and
 * `shell_command` an `Exit code: N` one; Codex's own failures are plain text with a known prefix.
 * Anything else is ok, unless an `exec_command_end` event before it recorded a non-zero exit code.
 *
 * The call's run time is in the same places (docs/semantics.md §11): `metadata.duration_seconds`,
 * or the header's `Wall time: N seconds`. The rollout's timestamps cannot give it: Codex writes
 * a call and its output one after the other once the call is over.
 */
export function readRolloutOutput(output: unknown): RolloutOutputFacts {
  if (typeof output !== 'string') {
    return { error: isRecord(output) && output['success'] === false ? { code: 'failed' } : undefined, latencyMs: undefined };
  }
  let metadataLatencyMs: number | undefined;
  if (output.startsWith('{')) {
    try {
      const parsed: unknown = JSON.parse(output);
      if (isRecord(parsed) && isRecord(parsed['metadata'])) {
        const code = finite(parsed['metadata']['exit_code']);
        metadataLatencyMs = secondsToMillis(finite(parsed['metadata']['duration_seconds']));
        if (code !== undefined)
          return { error: code === 0 ? undefined : { code: `exit_code_${code}`, message: `exit code ${code}` }, latencyMs: metadataLatencyMs };
      }
    } catch {
      // Not JSON after all: read it as text.
    }
  }
  const header = output.slice(0, 2000).split('\nOutput:\n', 1)[0] ?? '';
  const wallTime = /^Wall time: (\d+(?:\.\d+)?) seconds?\s*$/m.exec(header);
  const latencyMs = metadataLatencyMs ?? secondsToMillis(wallTime?.[1] === undefined ? undefined : Number(wallTime[1]));
  // `exec_command` writes "Process exited with code N"; `shell_command` (0.116+) "Exit code: N".
  const exited = /^(?:Process exited with code|Exit code:) (-?\d+)\s*$/m.exec(header);
  if (exited?.[1] !== undefined) {
    const code = Number(exited[1]);
    return { error: code === 0 ? undefined : { code: `exit_code_${code}`, message: `exit code ${code}` }, latencyMs };
  }
  for (const [pattern, code] of failurePrefixes) {
    if (pattern.test(output)) return { error: { code, message: firstLine(output) }, latencyMs };
  }
  return { error: undefined, latencyMs };
}
