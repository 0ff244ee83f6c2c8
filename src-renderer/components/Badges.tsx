import type { CallRow, RunRow } from '../../shared/api';
import type { Severity } from '../../shared/report';
import type { RunStatus } from '../../shared/trace/runStatus';
import { runSeverity } from '../../shared/worstSeverity';
import { humanize } from './format';
import { visibleText } from './VisibleText';

/** The run's row class: a stripe in the colour of its worst severity (shared/worstSeverity.ts), none when it has nothing to say. */
export function runSeverityClass(run: Pick<RunRow, 'status' | 'findings'>): string {
  const severity = runSeverity(run.status, run.findings);
  return severity === null ? '' : `row-${severity}`;
}

export function StatusBadge({ status, raw }: { status: RunStatus; raw: string }) {
  return (
    <span
      className={`badge status status-${status}`}
      title={
        status === 'running'
          ? 'No terminal event yet: the file is still being written'
          : raw === ''
            ? 'No terminal status was written'
            : `As written in the trace: ${visibleText(raw)}`
      }
      data-testid="run-status"
      data-status={status}
    >
      {humanize(status)}
    </span>
  );
}

export function SeverityBadge({ severity, count }: { severity: Severity; count?: number }) {
  return (
    <span className={`badge severity severity-${severity}`} data-severity={severity}>
      {count === undefined ? severity : `${count} ${severity}`}
    </span>
  );
}

/** Counts per severity, only those above zero; "—" when none. */
export function FindingCounts({ findings }: { findings: RunRow['findings'] }) {
  const severities = (['error', 'warning', 'info'] as const).filter((severity) => findings[severity] > 0);
  if (severities.length === 0) return <span className="muted">—</span>;
  return (
    <span className="finding-counts" title={severities.map((severity) => `${findings[severity]} ${severity}`).join(', ')}>
      {severities.map((severity) => (
        <SeverityBadge key={severity} severity={severity} count={findings[severity]} />
      ))}
    </span>
  );
}

const callStateLabels: Readonly<Record<NonNullable<CallRow['state']>, string>> = {
  ok: 'ok',
  error: 'error',
  dangling: 'dangling — no result',
  unexecuted: 'not executed',
  pending: 'pending',
  not_issued: 'not issued',
};

export function CallStateBadge({ state, errorCode }: { state: CallRow['state']; errorCode: string | null }) {
  if (state === null) return <span className="badge call-state call-state-unknown">unknown</span>;
  const label = state === 'error' && errorCode !== null ? `error ${visibleText(errorCode)}` : callStateLabels[state];
  return (
    <span className={`badge call-state call-state-${state}`} data-call-state={state}>
      {label}
    </span>
  );
}
