/**
 * `loopscope` command line. `analyze` runs the same engine as the app, headless, for terminals
 * and CI: exit 0 when no finding reaches --fail-on, 1 when one does, 2 on usage or I/O errors.
 * `redact` writes a copy of a trace without its credentials, to share it.
 * `compare` shows two runs side by side, their turns aligned, and where the second first diverged.
 * `export` writes the runs out: as OpenTelemetry GenAI spans, or as a library loaded into ClickHouse.
 * `serve` shows the app's UI in a browser on this machine; `open` starts the desktop app (or
 * serves the UI where it cannot start). Both run until interrupted. `mcp` answers a coding agent's
 * questions about the traces over the Model Context Protocol on stdio, until stdin closes. `--help` prints the usage of
 * every command, `COMMAND --help` of one, `--version` (`-V`) the version.
 */
import { appendFileSync, statSync } from 'node:fs';
import { parseArgs } from 'node:util';
import packageJson, { version } from '../../package.json';
import { formatCount } from '../../shared/formatCount';
import { formatProgress } from '../../shared/formatProgress';
import {
  analysisOptionsSchema,
  analyzeReportSchema,
  severityRank,
  type AnalysisOptions,
  type AnalyzeReport,
  type ReportFinding,
  type RunReport,
  type SkippedFile,
} from '../../shared/report';
import { summarizeRuns, summaryRunKey, ToolTally, type RunsSummary, type SummarizedFinding, type SummarizedRun } from '../../shared/summary/runsSummary';
import { formatSummaryText } from './formatSummary';
import {
  adapterNamed,
  formatNames,
  identifyFile,
  openTrace,
  readReport,
  readReportOutline,
  readSummaryFacts,
  runsWithRequests,
  TraceFileError,
  writeReportJson,
  type ReportOutline,
  type TraceHandle,
} from '../engine';
import { expandTraceArguments, withCompanionsInTheirTrace } from '../api/traceFiles';
import { formatTextReport } from './formatText';
import { formatCiReport, formatGithubStepSummary, reportFormats, type CiReport, type ReportFormat } from './reporters';
import { openApp } from './openApp';
import { ServeError, serveUntilInterrupted, type ServeOptions } from './serve';
import { serveMcp } from '../mcp/mcpServer';
import { defaultIdleAfterMs } from '../api/apiHost';
import { readUserPrices, UserPricesError } from '../api/userPricesFile';
import type { UserPrices } from '../../shared/cost/userPrices';
import { describeRedaction, RedactError, redactFile } from './redact';
import { CompareError, compareReferences, parseRunReference, type RunReference } from './compare';
import { formatCompareText } from './formatCompare';
import { compareReportSchema } from '../../shared/compare/compareRuns';
import { ClickHouseError } from '../clickhouse/clickhouseClient';
import { shardSchemaScript } from '../clickhouse/clickhouseLoad';
import { parseClickHouseLibraryUrl, type ClickHouseLibraryLocation } from '../clickhouse/clickhouseLocation';
import { clickHouseTarget, isExportError, runExport, type ExportCommand, type ExportTarget } from './exportCommand';

const synopsis = {
  analyze:
    'loopscope analyze FILE|DIR... [--json] [--summary] [--report junit|sarif|github] [--prices FILE] [--fail-on error|warning|never] [--window N] [--threshold N] [--format NAME] [--cache-dir DIR]',
  serve:
    'loopscope serve FILE|DIR... [--library clickhouse://HOST[:PORT]/DB] [--port N] [--cache-dir DIR] [--prices FILE] [--otlp [PORT] [--otlp-token T]] [--idle-after SECONDS | --no-follow]',
  open: 'loopscope open [FILE|DIR...] [--port N] [--cache-dir DIR] [--prices FILE] [--idle-after SECONDS | --no-follow] [--no-sandbox]',
  compare: 'loopscope compare FILE[#RUN_ID] FILE[#RUN_ID] [--json] [--prices FILE] [--cache-dir DIR]',
  redact: 'loopscope redact IN OUT',
  mcp: 'loopscope mcp [FILE|DIR...] [--cache-dir DIR]',
  export:
    'loopscope export FILE|DIR... (--otlp OUT.jsonl|URL | --clickhouse URL [--database NAME] [--cluster NAME]) [--content] [--prices FILE] [--cache-dir DIR]\n       loopscope export FILE --html OUT.html [--run ID] [--no-redact] [--prices FILE] [--cache-dir DIR]\n       loopscope export --clickhouse URL [--database NAME] --cluster NAME --print-shard-schema',
};

const analyzeHelp = `analyze: report every run and finding of the traces, in the terminal
  --json              print one JSON document (files, runs, findings) instead of text
  --summary           what the runs add up to: runs by status, findings by kind, failure signatures
                      across runs, tools by calls, errors and latency, tokens, cost and duration per
                      run; in text instead of every run, with --json as its \`summary\` object
  --report FORMAT     print a CI report instead of text (not with --json or --summary): junit (JUnit
                      XML: a suite per file, a test case per run, a failure per finding reaching
                      --fail-on), sarif (SARIF 2.1.0 for code scanning: a result per finding), github
                      (GitHub Actions annotations: a line per finding, then a summary line; with
                      $GITHUB_STEP_SUMMARY set, a table of the findings is added to the job summary)
  --prices FILE       prices for models the built-in price table lacks, USD per million tokens
                      (JSON: docs/semantics.md §18), for the summary's costs
  --fail-on LEVEL     exit 1 when a finding reaches LEVEL (default: error)
  --window N          repeated-action window: recent tool calls considered (default 6)
  --threshold N       repeated-action threshold: identical calls without progress (default 3)
  --format NAME       read the files as this format instead of detecting it (${formatNames().join(', ')})
  --cache-dir DIR     where trace databases are kept (default: $LOOPSCOPE_CACHE_DIR or ~/.cache/loopscope)`;

const serveSummary = `serve: show the traces in your browser: prints a URL on 127.0.0.1 (with a secret token in it)
       and serves the UI there until interrupted (Ctrl+C). A directory is kept as a library: every
       trace under it is indexed in the background, and new or changed files are indexed as they come`;
const openSummary = 'open:  open the traces in the desktop app; where it cannot start, serve them as `serve` does';
const uiOptionsHelp = `  --port N            listen on this port (default: a free one)
  --cache-dir DIR     as for analyze
  --prices FILE       prices for models the built-in table lacks, USD per million tokens (JSON:
                      docs/semantics.md §18); a library's runs are priced with them
  --idle-after S      files are followed as they are written: a run without a terminal event is
                      running until its file has not grown for S seconds (default ${defaultIdleAfterMs / 1000})
  --no-follow         read each file once, as analyze does
  --otlp [PORT]       also receive OpenTelemetry traces over OTLP/HTTP on 127.0.0.1 (POST /v1/traces,
                      JSON or protobuf; PORT default 4318 when free): point a loop's exporter at it
                      (OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318) and its runs join the library
  --otlp-token T      require Authorization: Bearer T on every OTLP request
  --library URL       (serve) the start page reads a library loaded into ClickHouse (export --clickhouse),
                      clickhouse://[USER[:PASSWORD]@]HOST[:PORT]/DB (PORT: its HTTP interface, default
                      8123), instead of indexing directories here; a run opens from its trace file
                      when that file is reachable on this machine`;
const noSandboxHelp = `  --no-sandbox        (open) start the desktop app without Chromium's OS sandbox, where it cannot
                      start with it (root, no user namespaces): the page still has no Node.js
                      access, but a Chromium flaw reached through a hostile trace is not contained`;

const compareHelp = `compare: two runs side by side: status, findings, steps, tool calls, tokens, cost and duration
         with B's difference from A, then their turns aligned (= same, ~ changed, - only in A,
         + only in B) and the first turn where B did something different
  FILE#RUN_ID         the run RUN_ID of FILE; FILE alone when it holds one top-level run
  --json              print the comparison as one JSON document
  --cache-dir DIR     as for analyze`;

const exportHelp = `export: write the runs of the traces out of Loopscope
  --otlp OUT|URL      every run as OpenTelemetry GenAI spans (semantic conventions v1.41.1): an
                      invoke_agent span per run, chat per model call, execute_tool per tool call,
                      findings as loopscope.* span events; to an OTLP JSON file (one request per line)
                      or an OTLP/HTTP endpoint (http://HOST:4318, /v1/traces added). Ids are derived
                      from the traces, so exporting twice gives the same spans
  --clickhouse URL    the library of the traces (runs, findings, calls, steps, events) loaded into
                      ClickHouse through its HTTP interface: http://HOST:PORT (with --database NAME,
                      default loopscope) or clickhouse://HOST[:PORT]/DB. Loading again adds only
                      traces that changed; an interrupted load resumes where it stopped
  --cluster NAME      (clickhouse) load through Distributed tables over the cluster NAME, whose
                      shards already have the local tables: --print-shard-schema prints the
                      statements that create them, to run on every shard (docs/clickhouse.md)
  --html OUT.html     one trace FILE as a single HTML file to send: the app's views, read-only (runs,
                      timeline, inspector, findings, calls, request diffs, growth chart), with what
                      they show embedded; it loads nothing and sends nothing (docs/html-report.md)
  --run ID            (html) only the run ID and the runs it started
  --no-redact         (html) keep credentials: the inspector shows each record as written (warned)
  --content           include what the runs said: messages, tool arguments and results (credentials
                      redacted first) as span attributes, or each event's original line in ClickHouse
  --prices FILE       as for analyze: the costs shown or loaded are priced with them too
  --cache-dir DIR     as for analyze`;

const redactHelp = `redact: write OUT, a copy of the trace IN with every credential found in it (API keys, tokens,
        Authorization headers, private keys, JWTs) replaced by [REDACTED:<kind>], every other
        byte as it was; prints how many of which kind, never their values`;

const mcpHelp = `mcp: a Model Context Protocol server on stdio (stdout is the protocol, messages go to stderr) for
     a coding agent to ask about its traces: list_traces, list_runs, get_run, get_event, list_events,
     search, diff_requests, compare_runs, failure_signatures (docs/mcp.md). A directory is kept as a
     library, indexed in the background. Ends when stdin closes
  --cache-dir DIR     as for analyze`;

const usage = `usage: ${synopsis.analyze}
       ${synopsis.serve}
       ${synopsis.open}
       ${synopsis.compare}
       ${synopsis.redact}
       ${synopsis.export}
       ${synopsis.mcp}

${analyzeHelp}

${serveSummary}
${openSummary}
${uiOptionsHelp}
${noSandboxHelp}

${compareHelp}

${redactHelp}

${exportHelp}

${mcpHelp}`;

/** `loopscope COMMAND --help`: that command's line and options. */
const commandHelp: ReadonlyMap<string, string> = new Map([
  ['analyze', `usage: ${synopsis.analyze}\n\n${analyzeHelp}`],
  ['serve', `usage: ${synopsis.serve}\n\n${serveSummary}\n${uiOptionsHelp}`],
  ['open', `usage: ${synopsis.open}\n\n${openSummary}\n${uiOptionsHelp}\n${noSandboxHelp}`],
  ['compare', `usage: ${synopsis.compare}\n\n${compareHelp}`],
  ['redact', `usage: ${synopsis.redact}\n\n${redactHelp}`],
  ['export', `usage: ${synopsis.export}\n\n${exportHelp}`],
  ['mcp', `usage: ${synopsis.mcp}\n\n${mcpHelp}`],
]);

/** `--help` or `-h` among a command's arguments (before a `--` that ends the options). */
function asksForHelp(args: readonly string[]): boolean {
  const optionsEnd = args.indexOf('--');
  return (optionsEnd === -1 ? args : args.slice(0, optionsEnd)).some((arg) => arg === '--help' || arg === '-h');
}

class UsageError extends Error {}

const failOnLevels = ['error', 'warning', 'never'] as const;
type FailOn = (typeof failOnLevels)[number];

interface AnalyzeCommand {
  files: string[];
  json: boolean;
  summary: boolean;
  /** `--report FORMAT`: a CI report (src-main/cli/reporters/) instead of text. */
  report: ReportFormat | undefined;
  /** `--prices FILE`: the summary's costs are priced with them too. */
  userPrices: UserPrices | undefined;
  failOn: FailOn;
  analysis: AnalysisOptions;
  cacheDir: string | undefined;
  format: string | undefined;
}

function parsePositiveInteger(flag: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value) || Number(value) < 1) throw new UsageError(`${flag} needs a whole number of at least 1, got "${value}"`);
  return Number(value);
}

function parseAnalyzeCommand(args: string[]): AnalyzeCommand {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      options: {
        json: { type: 'boolean', default: false },
        summary: { type: 'boolean', default: false },
        report: { type: 'string' },
        prices: { type: 'string' },
        'fail-on': { type: 'string', default: 'error' },
        window: { type: 'string' },
        threshold: { type: 'string' },
        'cache-dir': { type: 'string' },
        format: { type: 'string' },
      },
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  if (positionals.length === 0) throw new UsageError('analyze needs at least one trace file');
  const failOn = values['fail-on'];
  if (!(failOnLevels as readonly string[]).includes(failOn)) throw new UsageError(`--fail-on must be error, warning or never, got "${failOn}"`);
  const report = values.report;
  if (report !== undefined) {
    if (!(reportFormats as readonly string[]).includes(report)) throw new UsageError(`--report must be ${reportFormats.join(', ')}, got "${report}"`);
    if (values.json) throw new UsageError('--report and --json are two outputs: give one');
    // A CI report lists every finding; what the runs add up to is the text's and the JSON's.
    if (values.summary) throw new UsageError('--summary is for the text and --json outputs, not --report');
  }
  const analysis = analysisOptionsSchema.safeParse({
    window: parsePositiveInteger('--window', values.window, 6),
    threshold: parsePositiveInteger('--threshold', values.threshold, 3),
  });
  if (!analysis.success) throw new UsageError(analysis.error.issues[0]?.message ?? 'invalid --window/--threshold');
  if (values.format !== undefined && adapterNamed(values.format) === undefined) {
    throw new UsageError(`--format must be one of ${formatNames().join(', ')}, got "${values.format}"`);
  }
  return {
    files: positionals,
    json: values.json,
    summary: values.summary,
    report: report as ReportFormat | undefined,
    userPrices: values.prices === undefined ? undefined : readUserPrices(values.prices),
    failOn: failOn as FailOn,
    analysis: analysis.data,
    cacheDir: values['cache-dir'],
    format: values.format,
  };
}

interface UiCommand {
  files: string[];
  /** Kept as the library. */
  directories: string[];
  /** `--prices FILE`. */
  pricesFile: string | undefined;
  port: number | undefined;
  cacheDir: string | undefined;
  /** Null: files are read once, not followed. */
  idleAfterMs: number | null;
  /** `open --no-sandbox`. */
  noSandbox: boolean;
  /** `--otlp [PORT]` (and `--otlp-token TOKEN`): receive OTLP/HTTP traces too (src-main/otlp/otlpReceiver.ts); the port absent: 4318 when free. */
  otlp: { port?: number; token?: string } | null;
  /** `serve --library clickhouse://…`: the start page reads a library loaded into ClickHouse. */
  clickHouseLibrary: ClickHouseLibraryLocation | undefined;
}

/**
 * `--otlp` takes an optional port, which parseArgs cannot express: `--otlp=PORT`, or `--otlp PORT`
 * when the next word is a number (a trace file is never named by digits alone).
 */
function takeOtlpFlag(args: readonly string[]): { rest: string[]; otlp: boolean; port: string | undefined } {
  const rest: string[] = [];
  let otlp = false;
  let port: string | undefined;
  for (let index = 0; index < args.length; index += 1) {
    const arg = args[index]!;
    if (arg === '--otlp') {
      otlp = true;
      if (/^\d+$/.test(args[index + 1] ?? '')) port = args[++index];
    } else if (arg.startsWith('--otlp=')) {
      otlp = true;
      port = arg.slice('--otlp='.length);
    } else rest.push(arg);
  }
  return { rest, otlp, port };
}

function portNumber(flag: string, value: string): number {
  if (!/^\d+$/.test(value) || Number(value) > 65535) throw new UsageError(`${flag} needs a port number from 0 (any free port) to 65535, got "${value}"`);
  return Number(value);
}

function parseUiCommand(name: 'serve' | 'open', givenArgs: string[]): UiCommand {
  const { rest: args, otlp, port: otlpPort } = takeOtlpFlag(givenArgs);
  let parsed;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      options: {
        port: { type: 'string' },
        'cache-dir': { type: 'string' },
        'idle-after': { type: 'string' },
        'no-follow': { type: 'boolean', default: false },
        'no-sandbox': { type: 'boolean', default: false },
        prices: { type: 'string' },
        'otlp-token': { type: 'string' },
        library: { type: 'string' },
      },
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.library !== undefined && name !== 'serve') throw new UsageError('--library is for serve');
  // Received spans are kept in a library here, which a page reading ClickHouse would never show.
  if (values.library !== undefined && otlp)
    throw new UsageError('--otlp keeps what it receives in a library here; with --library, load it into ClickHouse with export --clickhouse');
  const clickHouseLibrary = values.library === undefined ? undefined : asUsageError(() => parseClickHouseLibraryUrl(values.library!));
  // The desktop app can start empty (File ▸ Open); a server of no file would show nothing, unless it receives traces or reads a library.
  if (name === 'serve' && positionals.length === 0 && !otlp && clickHouseLibrary === undefined)
    throw new UsageError('serve needs at least one trace file or directory, --library, or --otlp');
  if (values['otlp-token'] !== undefined && !otlp) throw new UsageError('--otlp-token is for --otlp');
  if (values['otlp-token'] === '') throw new UsageError('--otlp-token needs a token');
  if (name === 'serve' && values['no-sandbox']) throw new UsageError('--no-sandbox is for the desktop app (open); serve starts no sandbox of its own');
  const port = values.port === undefined ? undefined : portNumber('--port', values.port);
  if (values['no-follow'] && values['idle-after'] !== undefined) throw new UsageError('--idle-after is for followed files; leave it out with --no-follow');
  const idleAfterMs = values['no-follow'] ? null : parsePositiveInteger('--idle-after', values['idle-after'], defaultIdleAfterMs / 1000) * 1000;
  // Directories are the library (docs/semantics.md §18); files open as traces of their own.
  const directories = positionals.filter(isDirectory);
  if (clickHouseLibrary !== undefined && directories.length > 0)
    throw new UsageError(`--library reads a library in ClickHouse, not ${directories.join(', ')}: load a directory into it with export --clickhouse`);
  return {
    files: positionals.filter((path) => !directories.includes(path)),
    directories,
    port,
    cacheDir: values['cache-dir'],
    idleAfterMs,
    noSandbox: values['no-sandbox'],
    pricesFile: values.prices,
    clickHouseLibrary,
    otlp: otlp
      ? {
          ...(otlpPort !== undefined ? { port: portNumber('--otlp', otlpPort) } : {}),
          ...(values['otlp-token'] !== undefined ? { token: values['otlp-token'] } : {}),
        }
      : null,
  };
}

function uiOptions(command: UiCommand): ServeOptions {
  return {
    ...(command.cacheDir !== undefined ? { cacheDir: command.cacheDir } : {}),
    ...(command.port !== undefined ? { port: command.port } : {}),
    idleAfterMs: command.idleAfterMs,
    ...(command.directories.length > 0 ? { libraryRoots: command.directories } : {}),
    ...(command.pricesFile !== undefined ? { pricesFile: command.pricesFile } : {}),
    ...(command.otlp !== null ? { otlp: command.otlp } : {}),
    ...(command.clickHouseLibrary !== undefined ? { clickHouseLibrary: command.clickHouseLibrary } : {}),
  };
}

/** A parse that fails with what the user gave wrong: a usage error (exit 2, with the usage). */
function asUsageError<T>(parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    if (error instanceof ClickHouseError) throw new UsageError(error.message);
    throw error;
  }
}

function parseExportCommand(args: string[]): ExportCommand | { printShardSchema: string } {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      options: {
        otlp: { type: 'string' },
        clickhouse: { type: 'string' },
        database: { type: 'string' },
        cluster: { type: 'string' },
        content: { type: 'boolean', default: false },
        prices: { type: 'string' },
        'cache-dir': { type: 'string' },
        'print-shard-schema': { type: 'boolean', default: false },
        html: { type: 'string' },
        run: { type: 'string' },
        'no-redact': { type: 'boolean', default: false },
      },
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  if (values['print-shard-schema']) {
    if (values.clickhouse === undefined || values.cluster === undefined || positionals.length > 0)
      throw new UsageError('--print-shard-schema goes with --clickhouse URL --cluster NAME, and no trace');
    return { printShardSchema: asUsageError(() => clickHouseTarget(values.clickhouse!, values.database)).database };
  }
  if (positionals.length === 0) throw new UsageError('export needs at least one trace file or directory');
  const targets = [values.otlp, values.clickhouse, values.html].filter((value) => value !== undefined).length;
  if (targets !== 1) throw new UsageError('export needs one of --otlp OUT|URL, --clickhouse URL and --html OUT.html');
  if (values.html === undefined && (values.run !== undefined || values['no-redact'])) throw new UsageError('--run and --no-redact are for --html');
  if (values.html !== undefined) {
    if (positionals.length > 1 || isDirectory(positionals[0]!)) throw new UsageError('--html makes a report of one trace file: give one FILE');
    if (values.content || values.database !== undefined || values.cluster !== undefined)
      throw new UsageError('--content, --database and --cluster are not for --html');
  }
  if (values.otlp !== undefined && (values.database !== undefined || values.cluster !== undefined))
    throw new UsageError('--database and --cluster are for --clickhouse');
  if (values.cluster !== undefined && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(values.cluster)) throw new UsageError(`--cluster ${values.cluster} is not a plain name`);
  for (const input of positionals) if (!isDirectory(input)) identifyFile(input);
  const target: ExportTarget =
    values.html !== undefined
      ? { kind: 'html', out: values.html, runId: values.run, redact: !values['no-redact'] }
      : values.otlp !== undefined
        ? { kind: 'otlp', destination: values.otlp }
        : { kind: 'clickhouse', location: asUsageError(() => clickHouseTarget(values.clickhouse!, values.database)), cluster: values.cluster };
  return {
    inputs: positionals,
    target,
    content: values.content,
    cacheDir: values['cache-dir'],
    userPrices: values.prices === undefined ? undefined : readUserPrices(values.prices),
    analysis: analysisOptionsSchema.parse({}),
  };
}

async function serve(command: UiCommand): Promise<number> {
  // Every file is checked before the server starts, so a typo fails fast with its reason.
  for (const file of command.files) identifyFile(file);
  if (command.pricesFile !== undefined) readUserPrices(command.pricesFile);
  await serveUntilInterrupted(uiTraceFiles(command.files), uiOptions(command));
  return 0;
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** The NO_COLOR and FORCE_COLOR conventions, else colour only on a terminal. */
function wantsColor(): boolean {
  if (process.env['NO_COLOR']) return false;
  const forced = process.env['FORCE_COLOR'];
  if (forced !== undefined && forced !== '') return forced !== '0';
  return process.stdout.isTTY;
}

/** Says on stderr that a sub-agent file is read as its session (see `withCompanionsInTheirTrace`). */
function tellOwner(file: string, owner: string): void {
  process.stderr.write(`loopscope: ${file} is a sub-agent transcript of ${owner}: reading the session, with its sub-agents\n`);
}

/** The files to open for the command line's paths: sub-agent transcripts as their sessions. */
function uiTraceFiles(paths: readonly string[]): string[] {
  return withCompanionsInTheirTrace(
    paths.map((path) => ({ path, fromDirectory: false })),
    tellOwner,
  ).map((file) => file.path);
}

function reachesFailLevel(findings: readonly ReportFinding[], failOn: FailOn): boolean {
  if (failOn === 'never') return false;
  return findings.some((f) => severityRank[f.severity] >= severityRank[failOn]);
}

/** The report in the terminal: every file's report read whole, since the text summarizes each run's requests. */
function writeTextReport(reports: readonly AnalyzeReport[], skipped: readonly SkippedFile[], summary: RunsSummary | undefined): readonly ReportFinding[] {
  const report = analyzeReportSchema.parse({
    files: reports.flatMap((r) => r.files),
    runs: reports.flatMap((r) => r.runs),
    findings: reports.flatMap((r) => r.findings),
    skipped: [...reports.flatMap((r) => r.skipped), ...skipped],
  });
  process.stdout.write(summary === undefined ? formatTextReport(report, { color: wantsColor() }) : formatSummaryText(summary, report, { color: wantsColor() }));
  return report.findings;
}

/**
 * The report as JSON, written as it is read: each run's requests come from its trace's database
 * one at a time, so a run of a million events is written without its requests ever being held.
 */
function writeJsonReport(
  outlines: readonly { trace: TraceHandle; outline: ReportOutline }[],
  skipped: readonly SkippedFile[],
  summary: RunsSummary | undefined,
): readonly ReportFinding[] {
  const findings = outlines.flatMap(({ outline }) => outline.findings);
  function* runs() {
    for (const { trace, outline } of outlines) yield* runsWithRequests(trace, outline);
  }
  writeReportJson(
    { files: outlines.flatMap(({ outline }) => outline.files), runs: runs(), findings, skipped: [...skipped], ...(summary !== undefined ? { summary } : {}) },
    (text) => {
      process.stdout.write(text);
    },
  );
  return findings;
}

/**
 * `--report FORMAT` (src-main/cli/reporters/): the report printed as JUnit XML, SARIF or GitHub
 * annotations; for github, the job summary appended to $GITHUB_STEP_SUMMARY when the runner sets it.
 * Returns the exit code, by --fail-on as for text.
 */
function writeCiReport(
  format: ReportFormat,
  outlines: readonly { trace: TraceHandle; outline: ReportOutline }[],
  skipped: readonly SkippedFile[],
  failOn: FailOn,
): number {
  const report: CiReport = {
    files: outlines.flatMap(({ outline }) => outline.files),
    runs: outlines.flatMap(({ outline }) => outline.runs.map((run) => run.report)),
    findings: outlines.flatMap(({ outline }) => outline.findings),
    skipped,
  };
  const options = { failOn, cwd: process.cwd() };
  const homepage = (packageJson as { homepage?: unknown }).homepage;
  process.stdout.write(formatCiReport(format, report, options, { version, homepage: typeof homepage === 'string' ? homepage : undefined }));
  const stepSummary = process.env['GITHUB_STEP_SUMMARY'];
  if (format === 'github' && stepSummary !== undefined && stepSummary !== '') {
    try {
      appendFileSync(stepSummary, formatGithubStepSummary(report, options));
    } catch (error) {
      // The annotations are out; a summary file the runner did not make writable costs only the table.
      process.stderr.write(`loopscope: could not add to the job summary ${stepSummary}: ${(error as Error).message}\n`);
    }
  }
  return reachesFailLevel(report.findings, failOn) ? 1 : 0;
}

/** What the traces' runs add up to (`--summary`): their reports, and what the summary reads from each database. */
function summarizeTraces(
  traces: readonly { trace: TraceHandle; runs: readonly Omit<RunReport, 'requests'>[]; findings: readonly ReportFinding[] }[],
  userPrices: UserPrices | undefined,
): RunsSummary {
  const tools = new ToolTally();
  const runs: SummarizedRun[] = [];
  const findings: SummarizedFinding[] = [];
  for (const { trace, runs: traceRuns, findings: traceFindings } of traces) {
    const { costs, findingTools } = readSummaryFacts(trace, traceFindings, tools, userPrices);
    for (const run of traceRuns) runs.push({ ...run, cost_usd: costs.get(summaryRunKey(run.file, run.run_id)) ?? null });
    traceFindings.forEach((finding, index) => findings.push({ finding, tool: findingTools[index] ?? null }));
  }
  return summarizeRuns(runs, findings, tools);
}

async function analyze(command: AnalyzeCommand): Promise<number> {
  const files = withCompanionsInTheirTrace(expandTraceArguments(command.files), tellOwner);
  // Every file is checked before any work, so a typo fails fast with its reason.
  for (const { path } of files) identifyFile(path);
  // The JSON and the CI reports read each trace's outline, without its runs' requests.
  const outlined = command.json || command.report !== undefined;
  const showProgress = !outlined && process.stderr.isTTY;
  const reports: { trace: TraceHandle; report: AnalyzeReport }[] = [];
  const outlines: { trace: TraceHandle; outline: ReportOutline }[] = [];
  const skipped: SkippedFile[] = [];
  for (const { path: file, fromDirectory } of files) {
    const opening = openTrace(file, {
      analysis: command.analysis,
      ...(command.cacheDir !== undefined ? { cacheDir: command.cacheDir } : {}),
      ...(command.format !== undefined ? { format: command.format } : {}),
      ...(showProgress
        ? {
            onProgress: (p) => process.stderr.write(`\r${file}: ${formatProgress(p.bytesRead, p.totalBytes)} · ${formatCount(p.events)} events`),
          }
        : {}),
    });
    const trace = await opening.catch((error: unknown) => {
      // In a directory walk, a file that is not a trace (a config, a note) is skipped, and said so.
      if (fromDirectory && error instanceof TraceFileError && error.code === 'unknown_format') return null;
      throw error;
    });
    if (showProgress) process.stderr.write('\r\u001b[K');
    if (trace === null) skipped.push({ path: file, reason: 'not a known trace format' });
    else if (outlined) outlines.push({ trace: { ...trace, path: file }, outline: readReportOutline({ ...trace, path: file }, command.analysis) });
    else reports.push({ trace: { ...trace, path: file }, report: readReport({ ...trace, path: file }, command.analysis) });
  }
  const summary = !command.summary
    ? undefined
    : summarizeTraces(
        command.json
          ? outlines.map(({ trace, outline }) => ({ trace, runs: outline.runs.map((run) => run.report), findings: outline.findings }))
          : reports.map(({ trace, report }) => ({ trace, runs: report.runs, findings: report.findings })),
        command.userPrices,
      );
  if (command.report !== undefined) return writeCiReport(command.report, outlines, skipped, command.failOn);
  const findings = command.json
    ? writeJsonReport(outlines, skipped, summary)
    : writeTextReport(
        reports.map(({ report }) => report),
        skipped,
        summary,
      );
  return reachesFailLevel(findings, command.failOn) ? 1 : 0;
}

async function compare(args: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      options: { json: { type: 'boolean', default: false }, 'cache-dir': { type: 'string' }, prices: { type: 'string' } },
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  if (positionals.length !== 2) throw new UsageError('compare needs two runs: FILE[#RUN_ID] FILE[#RUN_ID]');
  const [a, b] = positionals.map(parseRunReference) as [RunReference, RunReference];
  for (const { file } of [a, b]) identifyFile(file);
  const userPrices = values.prices === undefined ? undefined : readUserPrices(values.prices);
  const report = await compareReferences(a, b, { analysis: analysisOptionsSchema.parse({}), cacheDir: values['cache-dir'], userPrices });
  process.stdout.write(values.json ? `${JSON.stringify(compareReportSchema.parse(report), null, 2)}\n` : formatCompareText(report, { color: wantsColor() }));
  return 0;
}

function redact(args: string[]): number {
  if (args.length !== 2 || args.some((arg) => arg.startsWith('--'))) throw new UsageError('redact needs two files: the trace (IN) and the copy to write (OUT)');
  const [input, output] = args as [string, string];
  process.stderr.write(`loopscope: ${describeRedaction(redactFile(input, output), output)}\n`);
  return 0;
}

async function mcp(args: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args, allowPositionals: true, options: { 'cache-dir': { type: 'string' } } });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  const directories = positionals.filter(isDirectory);
  const files = positionals.filter((path) => !directories.includes(path));
  for (const file of files) identifyFile(file);
  await serveMcp(uiTraceFiles(files), {
    version,
    libraryRoots: directories,
    ...(values['cache-dir'] !== undefined ? { cacheDir: values['cache-dir'] } : {}),
  });
  return 0;
}

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  try {
    if (command === undefined) throw new UsageError('no command given');
    if (command === '--help' || command === '-h' || command === 'help') {
      process.stdout.write(`${usage}\n`);
      return 0;
    }
    if (command === '--version' || command === '-V') {
      process.stdout.write(`${version}\n`);
      return 0;
    }
    const help = commandHelp.get(command);
    if (help !== undefined && asksForHelp(rest)) {
      process.stdout.write(`${help}\n`);
      return 0;
    }
    if (command === 'analyze') return await analyze(parseAnalyzeCommand(rest));
    if (command === 'serve') return await serve(parseUiCommand('serve', rest));
    if (command === 'compare') return await compare(rest);
    if (command === 'redact') return redact(rest);
    if (command === 'mcp') return await mcp(rest);
    if (command === 'export') {
      const exporting = parseExportCommand(rest);
      if ('printShardSchema' in exporting) {
        process.stdout.write(shardSchemaScript(exporting.printShardSchema));
        return 0;
      }
      return await runExport(exporting, version);
    }
    if (command === 'open') {
      const open = parseUiCommand('open', rest);
      if (open.pricesFile !== undefined) readUserPrices(open.pricesFile);
      return await openApp(uiTraceFiles(open.files), { ...uiOptions(open), noSandbox: open.noSandbox });
    }
    throw new UsageError(`unknown command "${command}"`);
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`loopscope: ${error.message}\n${usage}\n`);
      return 2;
    }
    if (
      error instanceof TraceFileError ||
      error instanceof ServeError ||
      error instanceof RedactError ||
      error instanceof CompareError ||
      error instanceof UserPricesError ||
      isExportError(error)
    ) {
      process.stderr.write(`loopscope: ${error.message}\n`);
      return 2;
    }
    throw error;
  }
}

/** Commands that run until interrupted, or ingest in workers of their own: when they end, an ingest still running in a worker must not keep the process alive. */
const untilInterruptedCommands: ReadonlySet<string | undefined> = new Set(['serve', 'open', 'export', 'mcp']);

main(process.argv.slice(2)).then(
  (code) => {
    if (untilInterruptedCommands.has(process.argv[2])) process.exit(code);
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`loopscope: internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 2;
  },
);
