/**
 * `secret_in_trace` findings (docs/semantics.md §14): one per credential ingest found in a line (the `secrets` table,
 * ingest/lineSecrets.ts), naming the call when the line is one call's event (docs/semantics.md §4).
 * They do not depend on the analysis options, yet findings are stored per options: each analysis
 * of a source copies them in, the way request findings are copied.
 */
import type Database from 'better-sqlite3';
import { secretLabels } from '../../../shared/secrets/secretScanner';
import { deleteSourceFindings, insertFinding } from '../store/findings';
import { sourceSecrets } from '../store/readModel';

export function replaceSecretFindings(db: Database.Database, sourceId: number, optionsKey: string): void {
  deleteSourceFindings(db, sourceId, optionsKey, 'secret_in_trace');
  for (const secret of sourceSecrets(db, sourceId)) {
    const where = secret.event_id === null ? ' (a line that is no event)' : '';
    const doubt =
      secret.confidence === 'low'
        ? ' It may be a placeholder or test value (few distinct characters, a word such as "test" or "invalid", or a failed checksum), so this is a warning.'
        : '';
    const message =
      `${secretLabels[secret.kind]} (${secret.kind}) in line ${secret.line}${where} at byte ${secret.line_offset} of the line, shown as ${secret.preview}: ` +
      `credentials must never be in a trace; \`loopscope redact\` writes a copy without them.${doubt}`;
    const details = {
      secret_kind: secret.kind,
      confidence: secret.confidence,
      offset: secret.byte_offset,
      line_offset: secret.line_offset,
      length: secret.byte_length,
      event_id: secret.event_id,
      preview: secret.preview,
    };
    insertFinding(db, {
      source_id: sourceId,
      options_key: optionsKey,
      run_pk: secret.run_pk,
      kind: 'secret_in_trace',
      severity: secret.confidence === 'high' ? 'error' : 'warning',
      step: secret.step,
      call_id: secret.call_id,
      line: secret.line,
      message,
      details_json: JSON.stringify(details),
    });
  }
}
