/**
 * API failures and how they cross a transport (`{error: {code, message}}`, shared/api.ts). Every
 * failure a caller can act on is an `ApiError` with a code from `apiErrorCodes`; anything else is
 * a bug and reaches the caller as `internal`, with its message and never as data. The renderer
 * receives it as an `ApiCallError` (src-renderer/api/client.ts), whose codes also name failures of
 * the transport itself.
 */
import type { z } from 'zod';
import type { ApiErrorCode } from '../../shared/api';
import { TraceFileError } from '../engine';

export class ApiError extends Error {
  constructor(
    readonly code: ApiErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** The first line of a message: an engine failure may carry a stack the user has no use for. */
function firstLine(text: string): string {
  return text.split('\n', 1)[0] ?? text;
}

/** Any thrown value as an ApiError: an unreadable trace file is `trace_file`, the rest `internal`. */
export function asApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof TraceFileError) return new ApiError('trace_file', error.message);
  return new ApiError('internal', `internal error: ${firstLine(error instanceof Error ? error.message : String(error))}`);
}

/** What a transport sends back for a failed call. */
export function toApiError(error: unknown): { error: { code: ApiErrorCode; message: string } } {
  const apiError = asApiError(error);
  return { error: { code: apiError.code, message: apiError.message } };
}

/** A request that does not match its schema, naming the field and what is wrong with it. */
export function invalidRequest(method: string, error: z.ZodError): ApiError {
  const issue = error.issues[0];
  const field = issue === undefined || issue.path.length === 0 ? 'request' : issue.path.map(String).join('.');
  return new ApiError('invalid_request', `${method}: ${field}: ${issue?.message ?? 'invalid'}`);
}
