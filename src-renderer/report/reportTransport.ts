/**
 * The transport of an HTML report: its recorded answers (shared/htmlReport/reportSnapshot.ts), read
 * from the page itself. A request the report does not hold fails with the
 * report's reason (code `not_in_report`), which the view shows as it shows any failure.
 */
import type { ApiMethod } from '../../shared/api';
import { answerFromSnapshot, NotInReportError, reportDataElementId, reportSnapshotSchema, type ReportSnapshot } from '../../shared/htmlReport/reportSnapshot';
import { ApiCallError, type Transport } from '../api/client';

/** The snapshot embedded in this page; throws saying what is wrong when it is missing or damaged. */
export async function readEmbeddedSnapshot(): Promise<ReportSnapshot> {
  const element = document.getElementById(reportDataElementId);
  if (element === null) throw new Error('This page holds no Loopscope report data.');
  const binary = atob((element.textContent ?? '').trim());
  const bytes = Uint8Array.from(binary, (character) => character.charCodeAt(0));
  const json = await new Response(new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'))).text();
  return reportSnapshotSchema.parse(JSON.parse(json));
}

export function snapshotTransport(snapshot: ReportSnapshot): Transport {
  return async (method: ApiMethod, request: unknown) => {
    try {
      return answerFromSnapshot(snapshot, method, request as Record<string, unknown>);
    } catch (error) {
      if (error instanceof NotInReportError) throw new ApiCallError('not_in_report', error.message);
      throw error;
    }
  };
}
