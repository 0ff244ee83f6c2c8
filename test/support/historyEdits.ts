/**
 * Histories as a loop's requests change them (fast-check): messages appended, one edited, dropped,
 * the history cut, a bare number given another digit — for the readers that reuse the bytes a
 * request shares with an earlier one (derive/requestBytes.ts, adapters/httpExchange/exchangeLineReader.ts).
 */
import fc from 'fast-check';

// Any characters, multi-byte ones too: the bytes of a message are what the readers compare and key it by.
const text = fc.string({ unit: 'grapheme', maxLength: 10 });

export const historyMessage = fc.oneof(
  fc.record({ role: fc.constantFrom('user', 'assistant'), content: text }),
  fc.record({ role: fc.constant('tool'), tool_call_id: fc.constantFrom('call_1', 'call_2'), content: text }),
  // A bare number ends where the next byte is not a digit: `12` and `123` share their first bytes.
  fc.integer({ min: 0, max: 999 }),
);

export const historyChange = fc.oneof(
  fc.record({ kind: fc.constant('append' as const), messages: fc.array(historyMessage, { minLength: 1, maxLength: 3 }) }),
  fc.record({ kind: fc.constant('edit' as const), at: fc.nat(), message: historyMessage }),
  fc.record({ kind: fc.constant('drop' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('cut' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('digit' as const), at: fc.nat(), digit: fc.integer({ min: 0, max: 9 }) }),
);

export type HistoryChange = typeof historyChange extends fc.Arbitrary<infer T> ? T : never;

/** The history after `change`. */
export function changedHistory(history: readonly unknown[], change: HistoryChange): unknown[] {
  const at = history.length === 0 ? 0 : ('at' in change ? change.at : 0) % history.length;
  if (change.kind === 'append') return [...history, ...change.messages];
  if (change.kind === 'edit') return history.map((old, i) => (i === at ? change.message : old));
  if (change.kind === 'drop') return history.filter((_, i) => i !== at);
  if (change.kind === 'cut') return history.slice(0, at);
  return history.map((old, i) => (i === at && typeof old === 'number' ? old * 10 + change.digit : old));
}
