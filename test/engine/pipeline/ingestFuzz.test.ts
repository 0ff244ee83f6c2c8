/**
 * Fuzzing the ingest with broken versions of real traces (issue 7): the example traces cut short,
 * with lines duplicated or swapped, bytes corrupted or inserted. Whatever the damage, through the
 * real engine (worker threads, a SQLite file):
 * - no exception escapes: the file loads;
 * - every line of the file is accounted for: blank, or an event's, a parse error's, or folded into
 *   an event (absorbed) — none is lost;
 * - the correlation is whole: every tool call has exactly one state, and an answer, when it has
 *   one, is an event of the call's own run.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { analyzeFile, temporaryDir } from '../../support/engineHarness';
import { splitLines } from '../../support/lines';
import { examplesDir } from '../../../devkit/repoPaths';

const examples = readdirSync(examplesDir)
  .filter((name) => name.endsWith('.jsonl'))
  .sort()
  .map((name) => readFileSync(join(examplesDir, name)));

type Mutation =
  | { kind: 'cut'; at: number }
  | { kind: 'duplicate'; line: number }
  | { kind: 'swap'; a: number; b: number }
  | { kind: 'corrupt'; at: number; byte: number }
  | { kind: 'insert'; at: number; bytes: Uint8Array };

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant('cut' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('duplicate' as const), line: fc.nat() }),
  fc.record({ kind: fc.constant('swap' as const), a: fc.nat(), b: fc.nat() }),
  fc.record({ kind: fc.constant('corrupt' as const), at: fc.nat(), byte: fc.integer({ min: 0, max: 255 }) }),
  fc.record({ kind: fc.constant('insert' as const), at: fc.nat(), bytes: fc.uint8Array({ minLength: 1, maxLength: 12 }) }),
);

function mutate(original: Buffer, change: Mutation): Buffer {
  const lines = splitLines(original);
  const join = (parts: Buffer[]) => Buffer.concat(parts.flatMap((line) => [line, Buffer.from('\n')]));
  switch (change.kind) {
    case 'cut':
      return original.subarray(0, change.at % (original.length + 1));
    case 'duplicate': {
      if (lines.length === 0) return original;
      const i = change.line % lines.length;
      return join([...lines.slice(0, i + 1), lines[i]!, ...lines.slice(i + 1)]);
    }
    case 'swap': {
      if (lines.length === 0) return original;
      const swapped = [...lines];
      const [a, b] = [change.a % lines.length, change.b % lines.length];
      [swapped[a], swapped[b]] = [swapped[b]!, swapped[a]!];
      return join(swapped);
    }
    case 'corrupt': {
      if (original.length === 0) return original;
      const copy = Buffer.from(original);
      copy[change.at % copy.length] = change.byte;
      return copy;
    }
    case 'insert': {
      const at = change.at % (original.length + 1);
      return Buffer.concat([original.subarray(0, at), change.bytes, original.subarray(at)]);
    }
  }
}

/** Lines as the engine counts them: each newline ends one, and a last line without one counts too. */
function lineCount(bytes: Buffer): number {
  return splitLines(bytes).length;
}

describe('ingest of mutated traces', { timeout: 300_000 }, () => {
  const dir = temporaryDir('fuzz');
  after(() => dir.remove());
  let file = 0;

  it('loads whatever the damage, loses no line, and keeps the correlation whole', async () => {
    await fc.assert(
      fc.asyncProperty(fc.nat({ max: examples.length - 1 }), fc.array(mutation, { minLength: 1, maxLength: 3 }), async (which, changes) => {
        const bytes = changes.reduce(mutate, examples[which]!);
        file += 1;
        const path = join(dir.path, `mutated-${file}.jsonl`);
        writeFileSync(path, bytes);
        const cacheDir = join(dir.path, `cache-${file}`);
        // Forced to the canonical format: damage must not turn into "no known format" and skip the ingest.
        const { trace } = await analyzeFile(path, { cacheDir, format: 'loopscope' });
        const db = new Database(trace.dbPath, { readonly: true });
        try {
          const source = db
            .prepare<[number], { lines: number; blank_lines: number }>('SELECT lines, blank_lines FROM sources WHERE id = ?')
            .get(trace.sourceId)!;
          assert.equal(source.lines, lineCount(bytes), 'lines counted');
          const accounted = db
            .prepare<[number, number, number], { n: number }>(
              `SELECT count(*) AS n FROM (SELECT line FROM events WHERE source_id = ? UNION SELECT line FROM parse_errors WHERE source_id = ?
                 UNION SELECT line FROM absorbed_lines WHERE source_id = ?)`,
            )
            .get(trace.sourceId, trace.sourceId, trace.sourceId)!.n;
          assert.equal(accounted, source.lines - source.blank_lines, 'every non-blank line is an event, a parse error or absorbed');
          const stateless = db.prepare<[], { n: number }>('SELECT count(*) AS n FROM calls WHERE state IS NULL').get()!.n;
          assert.equal(stateless, 0, 'every call has a state');
          const strayAnswers = db
            .prepare<[], { n: number }>(
              'SELECT count(*) AS n FROM call_states cs LEFT JOIN events e ON e.id = cs.answer_event_id WHERE cs.answer_event_id IS NOT NULL AND (e.id IS NULL OR e.run_pk != cs.run_pk)',
            )
            .get()!.n;
          assert.equal(strayAnswers, 0, "an answer is an event of the call's run");
        } finally {
          db.close();
        }
      }),
      { numRuns: 40 },
    );
  });
});
