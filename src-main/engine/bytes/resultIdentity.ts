/**
 * A tool result's identity for repeated-action progress (docs/semantics.md §6): a hash of its
 * status, output and error as written, without their volatile fields (timestamps, request ids).
 * Only results up to NORMALIZED_RESULT_CHARS are normalized — retry storms and polled statuses
 * are short, and a long result is read without ever being decoded (a multi-MB output stays a
 * slice of the line's bytes) — longer ones are hashed as written.
 */
import { NORMALIZED_RESULT_CHARS, withoutVolatileFields } from '../../../shared/analysis/volatileFields';
import { contentHash } from './contentHash';

/** `output` and `error` as written (the bytes of a line's members, or their JSON text). */
export function resultIdentity(isError: boolean, output: string | Buffer, error: string | Buffer): string {
  const status = isError ? 'error' : 'ok';
  if (output.length + error.length > NORMALIZED_RESULT_CHARS) {
    return contentHash(Buffer.concat([Buffer.from(`${status}\u0000`), toBuffer(output), Buffer.from('\u0000'), toBuffer(error)]));
  }
  return contentHash(`${status}\u0000${withoutVolatileFields(output.toString())}\u0000${withoutVolatileFields(error.toString())}`);
}

function toBuffer(text: string | Buffer): Buffer {
  return typeof text === 'string' ? Buffer.from(text) : text;
}
