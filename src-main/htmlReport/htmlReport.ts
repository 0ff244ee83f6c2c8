/**
 * `loopscope export FILE --html OUT.html [--run ID] [--no-redact]`: one trace (or one run of it and
 * the runs it started) as a single HTML file to send to someone — the app's views, read-only, with
 * the answers they need recorded in the file (htmlReportRecorder.ts, htmlReportPage.ts).
 */
import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { TraceSummary } from '../../shared/api';
import type { UserPrices } from '../../shared/cost/userPrices';
import type { AnalysisOptions } from '../../shared/report';
import { createApiHost } from '../api/apiHost';
import { readReportPageAssets, reportPageHtml } from './htmlReportPage';
import { HtmlReportError, recordReport } from './htmlReportRecorder';

export { HtmlReportError } from './htmlReportRecorder';

export interface HtmlReportOptions {
  file: string;
  out: string;
  runId: string | undefined;
  /** False with --no-redact: the inspector shows each record as written, credentials included. */
  redact: boolean;
  cacheDir: string;
  analysis: AnalysisOptions;
  userPrices: UserPrices | undefined;
  version: string;
}

export interface HtmlReportSummary {
  bytes: number;
  runs: number;
  events: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function exportHtmlReport(options: HtmlReportOptions): Promise<HtmlReportSummary> {
  // Checked before the trace is read: a report that cannot be written should not cost an ingest.
  const assets = readReportPageAssets();
  const host = createApiHost({
    shell: 'browser',
    version: options.version,
    canOpenPaths: false,
    idleAfterMs: null,
    cacheDir: options.cacheDir,
    analysis: options.analysis,
    ...(options.userPrices !== undefined ? { userPrices: options.userPrices } : {}),
  });
  try {
    let trace: TraceSummary = await host.open(options.file);
    while (trace.state === 'ingesting') {
      await sleep(50);
      trace = (await host.call('trace', { traceId: trace.traceId })) as TraceSummary;
    }
    if (trace.state === 'failed') throw new HtmlReportError(`${options.file}: ${trace.error ?? 'the trace could not be read'}`);
    const snapshot = await recordReport({ host, trace, runId: options.runId, redacted: options.redact, loopscopeVersion: options.version, now: new Date() });
    const title = `${trace.name}${snapshot.run === null ? '' : ` · run ${snapshot.run.runId}`} — Loopscope report`;
    const html = reportPageHtml(snapshot, assets, title);
    // Written beside itself and renamed: a failure never leaves half a report under its name.
    const partial = join(dirname(options.out), `.${basename(options.out)}.partial`);
    try {
      writeFileSync(partial, html);
      renameSync(partial, options.out);
    } catch (error) {
      rmSync(partial, { force: true });
      throw new HtmlReportError(`cannot write ${options.out}: ${(error as Error).message}`);
    }
    const runs = Object.keys(snapshot.answers).filter((key) => key.startsWith('run ')).length;
    const events = Object.keys(snapshot.answers).filter((key) => key.startsWith('event ')).length;
    return { bytes: Buffer.byteLength(html), runs, events };
  } finally {
    await host.close();
  }
}
