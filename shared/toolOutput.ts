/**
 * A tool result's output as a person reads it: the text the tool printed, with the facts a harness
 * wraps around it (exit code, duration) taken out of the wrapping. Formats write outputs as:
 *
 * - plain text;
 * - Codex's JSON-in-a-string, `{"output":"…","metadata":{"exit_code":1,"duration_seconds":0.2}}`
 *   (function_call_output, custom_tool_call_output);
 * - Codex's text headers before `Output:` — `Exit code: 1` / `Wall time: 0.2 seconds` (the shell
 *   tool), `Chunk ID: …` / `Wall time: …` / `Process exited with code 0` / `Original token count: …`
 *   (exec_command);
 * - content blocks, Anthropic's `[{"type":"text","text":"…"}]` (a Claude Code Task result, an MCP
 *   result), or one such block;
 * - any other JSON value, shown pretty-printed.
 *
 * Pure and total: any value gives a text; nothing is dropped without saying so.
 */

export interface DecodedOutput {
  /** What the tool printed, newlines real. */
  text: string;
  /** How `text` reads: `json` is pretty-printed JSON, `markdown` has headings, lists or code fences. */
  kind: 'text' | 'markdown' | 'json';
  exitCode: number | null;
  durationMs: number | null;
  /** What the text was unwrapped from, for a label ("Codex output JSON", "content blocks"); null when it was plain. */
  decodedFrom: string | null;
}

const headerPatterns: readonly { pattern: RegExp; fact?: 'exitCode' | 'durationSeconds' }[] = [
  { pattern: /^Exit code: (-?\d+)$/, fact: 'exitCode' },
  { pattern: /^Process exited with code (-?\d+)$/, fact: 'exitCode' },
  { pattern: /^Wall time: (\d+(?:\.\d+)?) seconds?$/, fact: 'durationSeconds' },
  { pattern: /^Chunk ID: \S+$/ },
  { pattern: /^Original token count: \d+$/ },
  { pattern: /^Process running with session ID \S+$/ },
];

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function finiteNumber(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

/** Seconds as whole milliseconds (a duration of 0.0 s stays 0, not "not recorded"). */
function secondsToMs(seconds: number | null): number | null {
  return seconds === null ? null : Math.round(seconds * 1000);
}

/**
 * Codex's header lines before `Output:`, when every line before it is one: otherwise the text is
 * someone's output that merely starts with similar words, and stays as written.
 */
function splitHeaders(text: string): { body: string; exitCode: number | null; durationMs: number | null } | null {
  const lines = text.split('\n', 8);
  const outputAt = lines.indexOf('Output:');
  if (outputAt < 1) return null;
  let exitCode: number | null = null;
  let durationSeconds: number | null = null;
  for (const line of lines.slice(0, outputAt)) {
    const header = headerPatterns.map(({ pattern, fact }) => ({ match: pattern.exec(line), fact })).find(({ match }) => match !== null);
    if (header === undefined) return null;
    const value = header.match?.[1];
    if (header.fact === 'exitCode' && value !== undefined) exitCode = Number(value);
    if (header.fact === 'durationSeconds' && value !== undefined) durationSeconds = Number(value);
  }
  const headerChars = lines.slice(0, outputAt + 1).reduce((sum, line) => sum + line.length + 1, 0);
  return { body: text.slice(headerChars), exitCode, durationMs: secondsToMs(durationSeconds) };
}

/** The text of content blocks, or null when they are not all blocks with a `type`. */
function contentBlocksText(blocks: readonly unknown[]): string | null {
  if (blocks.length === 0 || !blocks.every((block) => isRecord(block) && typeof block['type'] === 'string')) return null;
  return (blocks as Record<string, unknown>[])
    .map((block) => {
      if (block['type'] === 'text' && typeof block['text'] === 'string') return block['text'];
      // An image or any other block has no text: say what it is rather than drop it.
      return `[${String(block['type'])} block]`;
    })
    .join('\n\n');
}

/** Codex's `{"output": "…", "metadata": {…}}`, or null when the object is not that. */
function codexEnvelope(value: Record<string, unknown>): { text: string; exitCode: number | null; durationMs: number | null } | null {
  if (typeof value['output'] !== 'string') return null;
  const metadata = value['metadata'];
  if (!isRecord(metadata) || Object.keys(value).some((key) => key !== 'output' && key !== 'metadata')) return null;
  return { text: value['output'], exitCode: finiteNumber(metadata['exit_code']), durationMs: secondsToMs(finiteNumber(metadata['duration_seconds'])) };
}

/** Whether the text has the structure of markdown: a heading, a code fence, or several list items. */
export function looksLikeMarkdown(text: string): boolean {
  const sample = text.slice(0, 20_000);
  if (/^#{1,6} \S/m.test(sample) || /^```/m.test(sample)) return true;
  return (sample.match(/^\s{0,3}(?:[-*] |\d+\. )\S/gm) ?? []).length >= 2 && /\*\*\S|`[^`\n]+`/.test(sample);
}

/**
 * An output taken out of its wrapping, before it is laid out for reading: text (with the facts
 * read from the wrapping), or a JSON value that is shown as JSON.
 */
type UnwrappedOutput =
  | { kind: 'text'; text: string; exitCode: number | null; durationMs: number | null; decodedFrom: string | null }
  | { kind: 'json'; value: unknown; decodedFrom: string | null };

function unwrappedText(text: string, exitCode: number | null, durationMs: number | null, decodedFrom: string | null): UnwrappedOutput {
  return { kind: 'text', text, exitCode, durationMs, decodedFrom };
}

/** Unwraps an output that is an object or an array; `fromText`: it was written as JSON text. */
function unwrapStructured(value: unknown, fromText: boolean): UnwrappedOutput {
  if (Array.isArray(value)) {
    const text = contentBlocksText(value);
    if (text !== null) return unwrappedText(text, null, null, 'content blocks');
  } else if (isRecord(value)) {
    const envelope = codexEnvelope(value);
    if (envelope !== null) return unwrappedText(envelope.text, envelope.exitCode, envelope.durationMs, 'output/metadata JSON');
    const text = contentBlocksText([value]);
    if (text !== null && value['type'] === 'text') return unwrappedText(text, null, null, 'a text block');
  }
  return { kind: 'json', value, decodedFrom: fromText ? 'JSON text' : null };
}

function unwrapToolOutput(output: unknown): UnwrappedOutput {
  if (output === undefined || output === null) return unwrappedText('', null, null, null);
  if (typeof output !== 'string') return unwrapStructured(output, false);
  const trimmed = output.trimStart();
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    try {
      return unwrapStructured(JSON.parse(output) as unknown, true);
    } catch {
      // Text that only starts like JSON: it is read as text.
    }
  }
  const headers = splitHeaders(output);
  if (headers !== null) return unwrappedText(headers.body, headers.exitCode, headers.durationMs, 'Exit code / Wall time headers');
  return unwrappedText(output, null, null, null);
}

function prettyJson(value: unknown): string {
  return JSON.stringify(value, null, 2) ?? String(value);
}

/** The output of a tool result (`undefined`: the result carries none), decoded for reading. */
export function decodeToolOutput(output: unknown): DecodedOutput {
  const unwrapped = unwrapToolOutput(output);
  if (unwrapped.kind === 'json')
    return { text: prettyJson(unwrapped.value), kind: 'json', exitCode: null, durationMs: null, decodedFrom: unwrapped.decodedFrom };
  const { text, exitCode, durationMs, decodedFrom } = unwrapped;
  return { text, kind: looksLikeMarkdown(text) ? 'markdown' : 'text', exitCode, durationMs, decodedFrom };
}

/**
 * What of an output the search index holds: the output as it is when it reads as JSON (searched by
 * its values, not its keys), else its decoded text (Codex's output JSON unwrapped, content blocks
 * as their text). Nothing is laid out for reading on the way.
 */
export function outputSearchValue(output: unknown): unknown {
  const unwrapped = unwrapToolOutput(output);
  return unwrapped.kind === 'json' ? output : unwrapped.text;
}

/** The one-line start of an output for a summary: decoded, whitespace runs as one space, at most `chars` characters. */
export function outputPreview(output: unknown, chars: number): string {
  const unwrapped = unwrapToolOutput(output);
  return (unwrapped.kind === 'json' ? prettyJson(unwrapped.value) : unwrapped.text)
    .slice(0, chars * 4)
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, chars);
}
