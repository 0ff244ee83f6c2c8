/**
 * `loopscope export`: the runs of trace files and directories, out of Loopscope.
 * - `--otlp OUT.jsonl|URL`: every run as OpenTelemetry GenAI spans (docs/otlp.md), to an OTLP JSON
 *   file or an OTLP/HTTP endpoint.
 * - `--clickhouse URL`: the library of the traces (runs, findings, calls, steps, events) loaded into
 *   ClickHouse (docs/clickhouse.md), where `serve --library clickhouse://…` reads it.
 * - `--html OUT.html`: one trace, or one run of it, as a single HTML file to send (docs/html-report.md).
 */
import { ClickHouseClient, ClickHouseError } from '../clickhouse/clickhouseClient';
import { exportToClickHouse } from '../clickhouse/clickhouseLoad';
import { parseClickHouseLibraryUrl, type ClickHouseLibraryLocation } from '../clickhouse/clickhouseLocation';
import { defaultCacheDir } from '../engine';
import { exportOtlp, OtlpExportError } from '../otlp/otlpExport';
import { exportHtmlReport, HtmlReportError } from '../htmlReport/htmlReport';
import type { AnalysisOptions } from '../../shared/report';
import type { UserPrices } from '../../shared/cost/userPrices';

/** The database a library is loaded into when the URL names none and --database is not given. */
export const defaultClickHouseDatabase = 'loopscope';

export type ExportTarget =
  | { kind: 'otlp'; destination: string }
  | { kind: 'clickhouse'; location: ClickHouseLibraryLocation; cluster: string | undefined }
  | { kind: 'html'; out: string; runId: string | undefined; redact: boolean };

export interface ExportCommand {
  inputs: string[];
  target: ExportTarget;
  content: boolean;
  cacheDir: string | undefined;
  userPrices: UserPrices | undefined;
  analysis: AnalysisOptions;
}

/**
 * Where to load the library: `clickhouse://[user[:password]@]HOST[:PORT]/DB` (as `serve --library`
 * takes it), or the HTTP interface's `http(s)://[user[:password]@]HOST:PORT` with the database from
 * `--database` (default `loopscope`). Throws ClickHouseError saying what is wrong.
 */
export function clickHouseTarget(url: string, database: string | undefined): ClickHouseLibraryLocation {
  if (url.startsWith('clickhouse://')) {
    const location = parseClickHouseLibraryUrl(url);
    if (database !== undefined && database !== location.database) {
      throw new ClickHouseError(`--database ${database} and the database of ${url} differ: give one of them`);
    }
    return location;
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ClickHouseError(`not a ClickHouse URL: "${url}" (expected http://HOST:PORT of its HTTP interface, or clickhouse://HOST[:PORT]/DB)`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw new ClickHouseError(`not a ClickHouse URL: "${url}" (http://, https:// or clickhouse://)`);
  if (parsed.pathname !== '/' && parsed.pathname !== '')
    throw new ClickHouseError(`"${url}" has a path: name the database with --database, or use clickhouse://HOST:PORT/DB`);
  const name = database ?? defaultClickHouseDatabase;
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new ClickHouseError(`--database ${name} is not a plain name (letters, digits and _)`);
  return {
    url: `${parsed.protocol}//${parsed.host}`,
    database: name,
    ...(parsed.username !== '' ? { user: decodeURIComponent(parsed.username) } : {}),
    ...(parsed.password !== '' ? { password: decodeURIComponent(parsed.password) } : {}),
  };
}

/** Why an export could not be done (an endpoint or server refused, a file could not be written): said, exit 2. */
export function isExportError(error: unknown): error is Error {
  return error instanceof OtlpExportError || error instanceof ClickHouseError || error instanceof HtmlReportError;
}

export async function runExport(command: ExportCommand, version: string): Promise<number> {
  const log = (line: string): void => void process.stderr.write(`loopscope: ${line}\n`);
  const cacheDir = command.cacheDir ?? defaultCacheDir();
  if (command.target.kind === 'html') {
    const { out, runId, redact } = command.target;
    if (!redact) log('warning: --no-redact: the report holds each record as written, credentials included; share it only with whom may see them');
    const file = command.inputs[0]!;
    const report = await exportHtmlReport({ file, out, runId, redact, cacheDir, analysis: command.analysis, userPrices: command.userPrices, version });
    const size = report.bytes >= 1 << 20 ? `${(report.bytes / (1 << 20)).toFixed(1)} MiB` : `${Math.ceil(report.bytes / 1024)} KiB`;
    log(
      `wrote ${out} (${size}: ${report.runs} run${report.runs === 1 ? '' : 's'}, ${report.events.toLocaleString('en-US')} events${redact ? ', credentials masked' : ''})`,
    );
    return 0;
  }
  if (command.target.kind === 'otlp') {
    await exportOtlp({ inputs: command.inputs, destination: command.target.destination, content: command.content, cacheDir, log });
    return 0;
  }
  const { location, cluster } = command.target;
  const client = new ClickHouseClient({
    url: location.url,
    ...(location.user !== undefined ? { user: location.user } : {}),
    ...(location.password !== undefined ? { password: location.password } : {}),
  });
  const interrupted = new AbortController();
  // Ctrl+C stops before the next INSERT: what is loaded stays, and running the command again resumes.
  const stop = (): void => interrupted.abort(new ClickHouseError('interrupted: run the same command again to load the rest'));
  process.once('SIGINT', stop);
  try {
    const summary = await exportToClickHouse({
      inputs: command.inputs,
      client,
      database: location.database,
      ...(cluster !== undefined ? { cluster } : {}),
      content: command.content,
      cacheDir,
      analysis: command.analysis,
      ...(command.userPrices !== undefined ? { userPrices: command.userPrices } : {}),
      log,
      signal: interrupted.signal,
    });
    const rows = Object.values(summary.rows).reduce((total, count) => total + count, 0);
    log(
      `loaded ${summary.tracesLoaded} trace${summary.tracesLoaded === 1 ? '' : 's'} (${rows.toLocaleString('en-US')} rows) into ${client.address}/${location.database}; ` +
        `${summary.tracesUnchanged} already there unchanged${summary.tracesFailed > 0 ? `, ${summary.tracesFailed} could not be read` : ''}`,
    );
    return summary.tracesFailed > 0 ? 1 : 0;
  } finally {
    process.off('SIGINT', stop);
  }
}
