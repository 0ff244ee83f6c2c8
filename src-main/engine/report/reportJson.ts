/**
 * Writes the analyze report as JSON a piece at a time: the same text as
 * `JSON.stringify(analyzeReportSchema.parse(report), null, 2)`, each piece checked by its own
 * schema, without the report ever being one value. A run's requests are read and written one at
 * a time, so the memory written JSON takes does not grow with a run's length (a million-event run
 * has a quarter of a million requests: a hundred megabytes of JSON).
 */
import {
  fileReportSchema,
  reportFindingSchema,
  requestReportSchema,
  runReportSchema,
  skippedFileSchema,
  type AnalyzeReport,
  type RequestReport,
  type RunReport,
} from '../../../shared/report';
import { runsSummarySchema, type RunsSummary } from '../../../shared/summary/runsSummary';

/** A run of the report, its requests read as they are written. */
export interface StreamedRun {
  report: Omit<RunReport, 'requests'>;
  requests: Iterable<RequestReport>;
}

export interface StreamedReport {
  files: AnalyzeReport['files'];
  runs: Iterable<StreamedRun>;
  findings: AnalyzeReport['findings'];
  skipped: AnalyzeReport['skipped'];
  /** `analyze --summary`: what the runs add up to, written last. */
  summary?: RunsSummary;
}

const runWithoutRequestsSchema = runReportSchema.omit({ requests: true });

/** Text written by `write` in chunks of about this many characters: few writes, little held. */
const CHUNK_CHARS = 1 << 20;

/** `JSON.stringify(value, null, 2)` as it reads nested `depth` levels deep (JSON text has no raw newline but between its tokens). */
function nested(value: unknown, depth: number): string {
  return JSON.stringify(value, null, 2).replaceAll('\n', `\n${'  '.repeat(depth)}`);
}

/**
 * Writes a JSON array that is the value of `key` in an object `depth` levels deep, as
 * JSON.stringify lays it out: `[]` when empty, else one element a line, each written by `element`.
 */
function writeArray<T>(out: (text: string) => void, key: string, items: Iterable<T>, depth: number, element: (item: T, depth: number) => void): void {
  const indent = '  '.repeat(depth + 1);
  out(`${indent}${JSON.stringify(key)}: [`);
  let first = true;
  for (const item of items) {
    out(first ? `\n${indent}  ` : `,\n${indent}  `);
    first = false;
    element(item, depth + 2);
  }
  out(first ? ']' : `\n${indent}]`);
}

export function writeReportJson(report: StreamedReport, write: (text: string) => void): void {
  let pending: string[] = [];
  let pendingChars = 0;
  const out = (text: string): void => {
    pending.push(text);
    pendingChars += text.length;
    if (pendingChars < CHUNK_CHARS) return;
    write(pending.join(''));
    pending = [];
    pendingChars = 0;
  };
  out('{\n');
  writeArray(out, 'files', report.files, 0, (file, depth) => out(nested(fileReportSchema.parse(file), depth)));
  out(',\n');
  writeArray(out, 'runs', report.runs, 0, (run, depth) => {
    // The run's fields as JSON.stringify lays them out, its closing brace left off; `requests` is the schema's last field.
    const fields = nested(runWithoutRequestsSchema.parse(run.report), depth);
    out(`${fields.slice(0, fields.lastIndexOf('\n'))},\n`);
    writeArray(out, 'requests', run.requests, depth, (request, requestDepth) => out(nested(requestReportSchema.parse(request), requestDepth)));
    out(`\n${'  '.repeat(depth)}}`);
  });
  out(',\n');
  writeArray(out, 'findings', report.findings, 0, (finding, depth) => out(nested(reportFindingSchema.parse(finding), depth)));
  out(',\n');
  writeArray(out, 'skipped', report.skipped, 0, (skipped, depth) => out(nested(skippedFileSchema.parse(skipped), depth)));
  if (report.summary !== undefined) out(`,\n  "summary": ${nested(runsSummarySchema.parse(report.summary), 1)}`);
  out('\n}\n');
  write(pending.join(''));
}
