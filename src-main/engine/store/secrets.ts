/**
 * Credentials ingest found in lines (ingest/lineSecrets.ts) read back: where, and of what kind —
 * never their values. They are written by `TraceStore` (traceWriter.ts).
 */
import type Database from 'better-sqlite3';
import type { SecretConfidence, SecretKind } from '../../../shared/secrets/secretScanner';
import { prepared } from './preparedStatements';

export interface FoundSecretSqlRow {
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

/** The source's secrets in the order ingest found them. */
export function sourceSecrets(db: Database.Database, sourceId: number): FoundSecretSqlRow[] {
  return prepared<[number], FoundSecretSqlRow>(
    db,
    `SELECT s.run_pk, s.step, s.line, s.byte_offset, s.line_offset, s.byte_length, s.kind, s.confidence, s.preview, s.event_id, e.call_id
     FROM secrets s LEFT JOIN events e ON e.id = s.event_id WHERE s.source_id = ? ORDER BY s.id`,
  ).all(sourceId);
}
