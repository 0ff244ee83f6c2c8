/**
 * The text of an event that full-text search sees (tables search_text and search_index in
 * store/schema.ts). The ingester collects it from the event's own content while it has the event in
 * hand: a model response's text, refusal, tool call names and arguments; a tool call's name and
 * arguments; a tool result's output and error; a run's task; a run end's reason and output; the
 * last message of a model request (requests resend the whole history, so only the message a
 * request adds is indexed, not the history again on every request).
 *
 * Of a JSON value, the strings and numbers are kept, not the keys nor the structural members
 * (`type`, `role`, ids): what a person searches for is what was said and done. The text is capped
 * at SEARCH_TEXT_CHARS per event, so one huge output cannot dominate the index or a row batch.
 */

/** Characters of text kept per event, at most. */
export const SEARCH_TEXT_CHARS = 32 * 1024;

/** Members that carry structure or identifiers, not text anyone looks for. */
const skippedKeys = new Set(['type', 'role', 'id', 'call_id', 'tool_call_id', 'tool_use_id', 'signature']);

/** Deeper values are not walked: a bound on recursion for pathological nesting. */
const MAX_DEPTH = 32;

/**
 * C0 control characters other than tab and line breaks. They separate words for the tokenizer
 * anyway, and search reads snippets back with two of them as match markers, so none may be stored.
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const controlCharacters = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g;

/** Collects the searchable text of one event, up to SEARCH_TEXT_CHARS characters. */
export class SearchText {
  private readonly parts: string[] = [];
  private room: number;

  /** `capacity` 0 collects nothing: an ingest that builds no search index (`loopscope analyze`). */
  constructor(capacity: number = SEARCH_TEXT_CHARS) {
    this.room = capacity;
  }

  /** Adds a string, a number, or the strings and numbers inside an array or object. */
  add(value: unknown, depth = 0): void {
    if (this.room <= 0) return;
    if (typeof value === 'string') this.addString(value);
    else if (typeof value === 'number') this.addString(String(value));
    else if (Array.isArray(value)) {
      if (depth < MAX_DEPTH) for (const item of value) this.add(item, depth + 1);
    } else if (typeof value === 'object' && value !== null && depth < MAX_DEPTH) {
      const record = value as Record<string, unknown>;
      for (const key of Object.keys(record)) if (!skippedKeys.has(key)) this.add(record[key], depth + 1);
    }
  }

  /** The collected text, or null when the event has none. */
  text(): string | null {
    if (this.parts.length === 0) return null;
    return this.parts.join('\n').replace(controlCharacters, ' ');
  }

  private addString(text: string): void {
    if (text.trim() === '' || this.room <= 0) return;
    let kept = text.length <= this.room ? text : text.slice(0, this.room);
    // A cut between the halves of a surrogate pair would store a lone surrogate.
    const last = kept.charCodeAt(kept.length - 1);
    if (kept.length < text.length && last >= 0xd800 && last <= 0xdbff) kept = kept.slice(0, -1);
    this.parts.push(kept);
    this.room -= kept.length + 1;
  }
}
