/**
 * Acceptance over the real trace files in ../shared/samples (not shipped with the project, so
 * this is a script, not a test): prints one line per sample — format, runs, steps, tool calls,
 * results, findings by kind, parse errors — and a line on its model requests (logged or
 * reconstructed, the longest run's growth). Fails on a file no adapter reads, on an unexplained
 * parse error, on an unpaired call in a file whose own data pairs every call, and on a request
 * finding (a history rewrite or compaction, a changed system prompt or tool set, a rebuilt request
 * far from its usage) the file's data does not show: a side call (title, quota check) mixed into
 * a main loop's thread would read as one.
 *
 *   npm run samples [-- DIR]     (default ../shared/samples; .ci/run runs it when that exists)
 */
import { readdirSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { openTrace, readReport, TraceFileError } from '../src-main/engine/engine';
import { formatCount } from '../shared/formatCount';
import type { AnalysisOptions, RequestReport, RunReport } from '../shared/report';

/**
 * What the samples' own data says, where it is not "every call paired, every line readable":
 * counts of unpaired calls and of lines that are genuinely broken, by sample (see SOURCES.md).
 */
type Checked =
  | 'dangling_call'
  | 'orphan_result'
  | 'parse_errors'
  | 'history_rewrite'
  | 'history_compacted'
  | 'system_or_tools_changed'
  | 'missing_tool_result_in_history'
  | 'reconstruction_mismatch';
const expected: Record<string, Partial<Record<Checked, number>>> = {
  'claude-code/agentcmd-v2.0.14-unmatched-tooluse.jsonl': { dangling_call: 3 },
  // Cline cuts its history near the context limit without a record of it: recorded input 174k → 64k, 167k → 69k, 162k → 81k.
  'cline/cline-xray-task_sample-ui_messages.json': { history_compacted: 3 },
  // Its first prompt is a 120 KB IDE context (written twice, as response_item and event_msg), recorded as 3,587 input tokens.
  'codex-rollout/rollout-2025-09-24T20-12-23-01997ea4-a70d-7da3-8c20-c736db82a7c5.jsonl': { reconstruction_mismatch: 1 },
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

/** The file's requests in one line: how many, logged or reconstructed, and the longest run's growth. */
function requestsLine(runs: readonly RunReport[]): string {
  const requests = runs.flatMap((run) => run.requests);
  if (requests.length === 0) return 'requests: none';
  const reconstructed = requests.filter((request) => request.reconstructed).length;
  const longest = runs.reduce((best, run) => (run.requests.length > best.requests.length ? run : best), runs[0]!);
  const first = longest.requests[0]!;
  const last = longest.requests.at(-1)!;
  const tokens = (request: RequestReport): string =>
    request.input_tokens === null ? '?' : `${request.input_tokens}${request.input_tokens_source === 'estimated' ? ' est.' : ''}`;
  const rewrites = longest.requests.filter((request) => request.rewrite !== null).length;
  return (
    `requests: ${requests.length} (${reconstructed === requests.length ? 'reconstructed' : reconstructed === 0 ? 'logged' : `${reconstructed} reconstructed`}); ` +
    `longest run ${longest.run_id}: ${longest.requests.length} requests, ${rewrites === 0 ? 'append-only' : `${rewrites} rewritten`}, ` +
    `${first.messages}→${last.messages} messages, ${tokens(first)}→${tokens(last)} input tokens`
  );
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
      ...(['history_rewrite', 'history_compacted', 'system_or_tools_changed', 'missing_tool_result_in_history', 'reconstruction_mismatch'] as const).map(
        (kind): [string, number, number] => [kind, byKind.get(kind) ?? 0, want[kind] ?? 0],
      ),
    ];
    console.log(`${''.padEnd(18)} ${requestsLine(report.runs)}`);
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
  console.log('\nevery sample reads with its own format, no unexplained parse error, no unpaired call and no request rewrite beyond what its data shows');
}
