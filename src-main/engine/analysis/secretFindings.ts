/**
 * `secret_in_trace` findings (docs/semantics.md §14): one per credential ingest found in a line (the `secrets` table,
 * ingest/lineSecrets.ts), naming the call when the line is one call's event (docs/semantics.md §4).
 * They do not depend on the analysis options, yet findings are stored per options: each analysis
 * of a source copies them in, the way request findings are copied.
 */
import type Database from 'better-sqlite3';
import { secretLabels, type SecretConfidence, type SecretKind } from '../../../shared/secrets/secretScanner';
import { prepared } from '../store/preparedStatements';

interface SecretRow {
  run_pk: number | null;
  step: number | null;
  line: number;
  byte_offset: number;
  line_offset: number;
  byte_length: number;
  kind: SecretKind;
  confidence: SecretConfidence;
  preview: string;
  event_id: number | null;
  /** The call whose event (its result, its start, its not-executed mark) the line is. */
  call_id: string | null;
}

export function replaceSecretFindings(db: Database.Database, sourceId: number, optionsKey: string): void {
  prepared(db, `DELETE FROM findings WHERE source_id = ? AND options_key = ? AND kind = 'secret_in_trace'`).run(sourceId, optionsKey);
  const insert = prepared(
    db,
    `INSERT INTO findings (source_id, options_key, run_pk, kind, severity, step, call_id, line, message, details_json)
     VALUES (?, ?, ?, 'secret_in_trace', ?, ?, ?, ?, ?, ?)`,
  );
  const secrets = prepared<[number], SecretRow>(
    db,
    `SELECT s.run_pk, s.step, s.line, s.byte_offset, s.line_offset, s.byte_length, s.kind, s.confidence, s.preview, s.event_id, e.call_id
     FROM secrets s LEFT JOIN events e ON e.id = s.event_id WHERE s.source_id = ? ORDER BY s.id`,
  ).all(sourceId);
  for (const secret of secrets) {
    const where = secret.event_id === null ? ' (a line that is no event)' : '';
    const doubt =
      secret.confidence === 'low' ? ' It may be a placeholder or test value (few distinct characters, a word such as "test" or "invalid", or a failed checksum), so this is a warning.' : '';
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
    insert.run(sourceId, optionsKey, secret.run_pk, secret.confidence === 'high' ? 'error' : 'warning', secret.step, secret.call_id, secret.line, message, JSON.stringify(details));
  }
}
