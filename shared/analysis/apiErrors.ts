/**
 * Provider errors (docs/semantics.md §7): a model call the provider refused — an HTTP error status,
 * an error event in a stream — is one `api_error` finding, whose severity says what it cost the
 * run. Retried and a retry went through: info (a 529 or 429 is weather, not a bug). A later call
 * went through only after the loop changed what it sends (tool results added: the loop repaired its
 * request): warning. Nothing after it went through: the error ended the run, an error.
 */
import type { Finding, Severity } from '../report';
import { describeApiError } from '../trace/canonicalEvents';
import { finding } from './finding';
import type { ResponseEntry, RunTimeline, TimelineEntries, TimelineEntry } from './timeline';

/** What followed a failed model call in its run. */
interface Sequel {
  /** The next model call the provider answered. */
  recovered: ResponseEntry | null;
  /** Failed calls between this one and `recovered` (or the end of the run). */
  laterFailures: number;
  /** The first tool activity (a result, an execution) between this call and `recovered`: the request changed. */
  change: TimelineEntry | null;
}

/**
 * One backward pass: what follows each failed call, by its position, without rescanning a storm of
 * retries per error.
 */
function sequels(entries: TimelineEntries): Map<number, Sequel> {
  const byError = new Map<number, Sequel>();
  let recovered: ResponseEntry | null = null;
  let laterFailures = 0;
  let change: TimelineEntry | null = null;
  for (let index = entries.length - 1; index >= 0; index -= 1) {
    const kind = entries.kind(index);
    if (kind === 'result' || kind === 'execution' || kind === 'not_executed') {
      change = entries.at(index)!;
    } else if (kind === 'response') {
      const entry = entries.at(index) as ResponseEntry;
      if (entry.apiError === null) {
        recovered = entry;
        laterFailures = 0;
        change = null;
      } else {
        byError.set(index, { recovered, laterFailures, change });
        laterFailures += 1;
      }
    }
  }
  return byError;
}

function stepText(entry: Pick<ResponseEntry, 'step' | 'line'>): string {
  return `${entry.step !== null ? `step ${entry.step}` : 'the call'} (line ${entry.line})`;
}

function verdict(timeline: RunTimeline, sequel: Sequel): { severity: Severity; text: string } {
  const failures = sequel.laterFailures > 0 ? `; ${sequel.laterFailures} more attempt${sequel.laterFailures === 1 ? '' : 's'} failed` : '';
  if (sequel.recovered === null) {
    if (timeline.status === 'running') return { severity: 'warning', text: `no model call has gone through since${failures} (the run is still being written)` };
    return { severity: 'error', text: `no model call went through after it${failures}: the error ended the run` };
  }
  const through = `the call at ${stepText(sequel.recovered)} went through`;
  if (sequel.change !== null) {
    return { severity: 'warning', text: `the loop changed its request (tool activity at line ${sequel.change.line})${failures}, then ${through}` };
  }
  return { severity: 'info', text: `the loop retried${failures}, and ${through}` };
}

export function analyzeApiErrors(timeline: RunTimeline): Finding[] {
  const byError = sequels(timeline.entries);
  const findings: Finding[] = [];
  // Filled from the end: reversed, the failed calls come in log order.
  for (const [index, sequel] of [...byError].reverse()) {
    const entry = timeline.entries.at(index) as ResponseEntry;
    const error = entry.apiError!;
    const { severity, text } = verdict(timeline, sequel);
    findings.push(
      finding(timeline, 'api_error', {
        severity,
        step: entry.step,
        line: entry.line,
        message: `the model call at ${stepText(entry)} failed at the provider with ${describeApiError(error)}; ${text}`,
        details: {
          status: error.status,
          type: error.type,
          message: error.message,
          retried: sequel.recovered !== null && sequel.change === null,
          recovered_step: sequel.recovered?.step ?? null,
          recovered_line: sequel.recovered?.line ?? null,
          later_failures: sequel.laterFailures,
        },
      }),
    );
  }
  return findings;
}
