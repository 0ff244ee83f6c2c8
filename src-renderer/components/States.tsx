/** What a view shows while it has nothing to show: why, and what the user can do about it. */
import type { ReactNode } from 'react';
import { ApiCallError, errorMessage } from '../api/client';

export function Loading({ what }: { what: string }) {
  return (
    <div className="state state-loading" role="status" data-testid="loading">
      <span className="spinner" aria-hidden="true" />
      Loading {what}…
    </div>
  );
}

export function Empty({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="state state-empty" data-testid="empty">
      <strong>{title}</strong>
      {children !== undefined && <div className="state-hint">{children}</div>}
    </div>
  );
}

/** What the user can do about each API failure code (shared/api.ts `apiErrorCodes`). */
const hints: Readonly<Record<string, string>> = {
  unreachable: 'Start `loopscope serve` again, then reload this page.',
  not_found: 'It may belong to a trace that is no longer open, or the link is out of date. Go back to the start screen and open the trace again.',
  not_ready: 'The trace is still being read; this view appears when reading is done.',
  trace_file: 'Check that the file exists and is readable, then reload the trace.',
  not_allowed: 'In the browser, open files by passing them to `loopscope serve FILE…`.',
  unavailable: 'This build of Loopscope does not have that feature.',
  invalid_response: 'The app and the server are different versions. Rebuild (`npm run build`) and restart `loopscope serve`.',
  internal: 'This is a bug in Loopscope. Reloading may help; please report it with the message above.',
  not_in_report: 'A report holds what was exported with it. Open the trace itself in Loopscope (`loopscope open FILE`) for the rest.',
};

export function Failure({ what, error, onRetry }: { what: string; error: unknown; onRetry?: () => void }) {
  const code = error instanceof ApiCallError ? error.code : null;
  return (
    <div className="state state-error" role="alert" data-testid="error">
      <strong>Could not load {what}.</strong>
      <div className="state-message">{errorMessage(error)}</div>
      {code !== null && hints[code] !== undefined && <div className="state-hint">{hints[code]}</div>}
      {onRetry && (
        <button type="button" onClick={onRetry}>
          Try again
        </button>
      )}
    </div>
  );
}
