/**
 * Acceptance over the real trace files in ../shared/samples (not shipped with the project, so
 * this is a script, not a test): prints one line per sample — format, runs, steps, tool calls,
 * results, findings by kind, parse errors — and fails on a file no adapter reads, on an
 * unexplained parse error, or on an unpaired call in a file whose own data pairs every call.
 *
 *   npm run samples [-- DIR]     (default ../shared/samples; .ci/run runs it when that exists)
 */
import { readdirSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { openTrace, readReport, TraceFileError } from '../src-main/engine/engine';
import { formatCount } from '../shared/formatCount';
import type { AnalysisOptions } from '../shared/report';

/**
 * What the samples' own data says, where it is not "every call paired, every line readable":
 * counts of unpaired calls and of lines that are genuinely broken, by sample (see SOURCES.md).
 */
const expected: Record<string, Partial<Record<'dangling_call' | 'orphan_result' | 'parse_errors', number>>> = {
  'claude-code/agentcmd-v2.0.14-unmatched-tooluse.jsonl': { dangling_call: 3 },
  'codex-rollout/rollout-2026-02-23T13-19-38-019c8a70-dda7-7f33-98ea-f30553347322.jsonl': { dangling_call: 1 },
  // SOURCES.md: "144 calls with 1 unmatched call_id" (the session restarts its turn without an abort).
  'codex-rollout/rollout-2026-02-23T12-47-42-019c8a53-a0dd-7130-bcd7-95445d84846a.jsonl': { dangling_call: 1 },
};

const analysis: AnalysisOptions = { window: 6, threshold: 3 };
const root = resolve(process.argv[2] ?? join(import.meta.dirname, '..', '..', 'shared', 'samples'));

function sampleFiles(directory: string): string[] {
  return readdirSync(directory)
    .sort()
    .flatMap((name) => {
      const path = join(directory, name);
      if (statSync(path).isDirectory()) return sampleFiles(path);
      return name.endsWith('.md') ? [] : [path];
    });
}

const cacheDir = join(process.env['TMPDIR'] ?? '/tmp', `loopscope-samples-${process.pid}`);
const failures: string[] = [];
for (const path of sampleFiles(root)) {
  const name = relative(root, path);
  const want = expected[name] ?? {};
  try {
    const trace = await openTrace(path, { cacheDir, analysis });
    const report = readReport(trace, analysis);
    const file = report.files[0]!;
    const sum = (key: 'steps' | 'tool_calls' | 'tool_results'): number => report.runs.reduce((total, run) => total + run[key], 0);
    const byKind = new Map<string, number>();
    for (const finding of report.findings) byKind.set(finding.kind, (byKind.get(finding.kind) ?? 0) + 1);
    const kinds = [...byKind].map(([kind, count]) => `${kind}×${count}`).join(' ') || 'no findings';
    console.log(
      `${file.format.padEnd(18)} runs ${String(report.runs.length).padStart(3)}  steps ${String(sum('steps')).padStart(4)}  calls ${String(sum('tool_calls')).padStart(4)}  results ${String(sum('tool_results')).padStart(4)}  parse errors ${String(file.parse_errors.length).padStart(2)}  ${name}  [${kinds}]`,
    );
    const checks: [string, number, number][] = [
      ['parse errors', file.parse_errors.length, want.parse_errors ?? 0],
      ['dangling_call', byKind.get('dangling_call') ?? 0, want.dangling_call ?? 0],
      ['orphan_result', byKind.get('orphan_result') ?? 0, want.orphan_result ?? 0],
    ];
    for (const [what, got, allowed] of checks) {
      if (got !== allowed) failures.push(`${name}: ${formatCount(got)} ${what}, the file's own data explains ${allowed}`);
    }
  } catch (error) {
    const reason = error instanceof TraceFileError ? error.reason : String(error);
    console.log(`${'(unread)'.padEnd(18)} ${name}: ${reason}`);
    failures.push(`${name}: ${reason}`);
  }
}
if (failures.length > 0) {
  console.error(`\n${failures.length} sample(s) fail:\n${failures.map((failure) => `  ${failure}`).join('\n')}`);
  process.exitCode = 1;
} else {
  console.log('\nevery sample reads with its own format, no unexplained parse error, no unpaired call beyond what its data shows');
}
