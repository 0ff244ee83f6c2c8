/**
 * Failure signatures (docs/semantics.md §15): findings grouped across runs, and inside one run, by
 * what failed rather than by where, so that hundreds of runs read as "134 runs: `get_order`
 * returned `ORDER_NOT_FOUND: order <n> not found`".
 */
import type { FindingKind } from '../report';
import { normalizeSignatureText } from './normalizeSignatureText';

/**
 * What a finding is about. The caller decides per kind what `text` is: the error line for a tool
 * error, the tool and its arguments for a repeated action, the message otherwise.
 */
export interface SignatureSubject {
  kind: FindingKind;
  tool: string | null;
  text: string;
}

export interface FailureSignature {
  /** Equal for equal signatures and only for them: compare and group by it. */
  key: string;
  kind: FindingKind;
  tool: string | null;
  /** The subject's text, normalized. */
  text: string;
}

export function signatureOf(subject: SignatureSubject): FailureSignature {
  const text = normalizeSignatureText(subject.text);
  // JSON of the parts, not a joined string: no separator a tool name or text could contain makes
  // two different signatures collide, and a null tool stays apart from a tool named "null".
  return { key: JSON.stringify([subject.kind, subject.tool, text]), kind: subject.kind, tool: subject.tool, text };
}

export interface SignatureOccurrence<T> {
  subject: SignatureSubject;
  /** Which run it happened in; runs are counted by distinct key. */
  runKey: string;
  /** ISO time the run started or the finding happened; null when unknown. */
  at: string | null;
  item: T;
}

export interface SignatureGroup<T> {
  signature: FailureSignature;
  /** Every occurrence, a run's repeats included. */
  findings: number;
  /** Distinct runs. */
  runs: number;
  /** runs / totalRuns; 0 when there are no runs. */
  share: number;
  firstSeen: string | null;
  lastSeen: string | null;
  /** The first occurrence's item, in input order. */
  example: T;
  /** Distinct, in the order their first occurrence came. */
  runKeys: string[];
}

/**
 * The occurrences grouped by signature, the most widespread first: by runs, then by findings (a
 * failure in many runs matters more than one repeated in a single run), then by key, so that equal
 * input gives equal output whatever the order of ties.
 */
export function groupBySignature<T>(items: Iterable<SignatureOccurrence<T>>, totalRuns: number): SignatureGroup<T>[] {
  const groups = new Map<string, SignatureGroup<T> & { seenRuns: Set<string> }>();
  for (const { subject, runKey, at, item } of items) {
    const signature = signatureOf(subject);
    let group = groups.get(signature.key);
    if (group === undefined) {
      group = { signature, findings: 0, runs: 0, share: 0, firstSeen: null, lastSeen: null, example: item, runKeys: [], seenRuns: new Set() };
      groups.set(signature.key, group);
    }
    group.findings += 1;
    if (!group.seenRuns.has(runKey)) {
      group.seenRuns.add(runKey);
      group.runKeys.push(runKey);
    }
    // ISO 8601 times in one format and zone order as strings.
    if (at !== null) {
      if (group.firstSeen === null || at < group.firstSeen) group.firstSeen = at;
      if (group.lastSeen === null || at > group.lastSeen) group.lastSeen = at;
    }
  }
  return [...groups.values()]
    .map(({ seenRuns, ...group }) => ({ ...group, runs: seenRuns.size, share: totalRuns > 0 ? seenRuns.size / totalRuns : 0 }))
    .sort((a, b) => b.runs - a.runs || b.findings - a.findings || compareStrings(a.signature.key, b.signature.key));
}

/** Code-unit order: the same on every machine, unlike localeCompare. */
function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
