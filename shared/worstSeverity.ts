import type { Severity } from './report';
import type { RunStatus } from './trace/runStatus';

/**
 * How bad a run is, for its stripe in lists: the worst of its findings and of its terminal state, so
 * a run with only warnings reads as a warning, not as an error. The statuses match their badges'
 * colours: a loop that failed is an error; one stopped by a budget, cut off or refused is a warning.
 */
const statusSeverity: Partial<Readonly<Record<RunStatus, Severity>>> = {
  failed: 'error',
  protocol_error: 'error',
  budget_exceeded: 'warning',
  unterminated: 'warning',
  refused: 'warning',
};

export function worstSeverity(counts: Readonly<Record<Severity, number>>): Severity | null {
  if (counts.error > 0) return 'error';
  if (counts.warning > 0) return 'warning';
  if (counts.info > 0) return 'info';
  return null;
}

export function runSeverity(status: RunStatus, counts: Readonly<Record<Severity, number>>): Severity | null {
  const ofStatus = statusSeverity[status];
  const ofFindings = worstSeverity(counts);
  if (ofStatus === 'error' || ofFindings === 'error') return 'error';
  return ofStatus ?? ofFindings;
}
