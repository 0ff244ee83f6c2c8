/**
 * Why a tool call failed, in one line (docs/semantics.md §7): the line of a failed result's
 * error output that says what went wrong, computed once at ingest for the finding, the Calls
 * table and the result chip.
 *
 * Formats put the words in different places: a canonical `error.message`; Claude Code the
 * result's content (`<tool_use_error>…</tool_use_error>`, or a Bash output that may start with
 * `Exit code 1`); Codex a JSON string `{"output": "…", "metadata": {"exit_code": …}}` or a text
 * with `Exit code:` / `Wall time:` / `Output:` headers, while its `error.message` only repeats the
 * exit code. So the error is read first and the output only when the error has no line of its own;
 * of those lines, the first that names an error (`error`, `failed`, `No such file`, `denied`, …)
 * wins, else the first that is not boilerplate (empty, punctuation only, an exit-code or timing
 * header, a `<tool_use_error>` wrapper).
 */

/** How long the line may be: enough for a compiler message, short enough for a table cell. */
export const ERROR_LINE_CHARS = 200;

/** How much of a text is read: an error is near the start, and outputs can be megabytes. */
const SCANNED_CHARS = 64 * 1024;

/** A nested JSON value is not followed deeper than this. */
const MAX_DEPTH = 4;

// ANSI colour and cursor sequences (terminal output captured as is).
// eslint-disable-next-line no-control-regex
const ansiSequence = /\u001b\[[0-9;?]*[ -/]*[@-~]/g;
const wrapperTag = /<\/?(tool_use_error|error|stderr|stdout|output)>/gi;

/** Lines that frame an output without saying anything about the failure. */
const boilerplate: readonly RegExp[] = [
  /^exit(?:ed)?(?: with)? (?:code|status):? ?-?\d+\.?$/i,
  /^process exited with code -?\d+\.?$/i,
  /^(?:wall time|chunk id|original token count|total output lines|duration):/i,
  /^(?:output|stdout|stderr):$/i,
];

/** Words of a line that says what went wrong. */
const namesAnError =
  /\b(?:errors?|exception|traceback|fail(?:ed|ure|s)?|fatal|panic(?:ked)?|denied|refused|cannot|can't|could not|couldn't|unable|not found|no such|invalid|timed out|abort(?:ed)?|rejected|not permitted|forbidden|segmentation fault)\b/i;

/** The texts of an output value, most telling first: stderr before stdout, content blocks joined. */
function outputTexts(value: unknown, depth = 0): string[] {
  if (depth > MAX_DEPTH || value === null || value === undefined) return [];
  if (typeof value === 'string') {
    const trimmed = value.trimStart();
    if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
      try {
        return outputTexts(JSON.parse(trimmed), depth + 1);
      } catch {
        // Text that happens to start with a bracket.
      }
    }
    return [value];
  }
  if (Array.isArray(value)) {
    // Content blocks (`[{"type": "text", "text": "…"}]`) or a list of strings.
    return value.slice(0, 50).flatMap((item) => outputTexts(item, depth + 1));
  }
  if (typeof value !== 'object') return [];
  const record = value as Record<string, unknown>;
  const fields = ['stderr', 'error', 'message', 'text', 'content', 'output', 'aggregated_output', 'formatted_output', 'stdout', 'result'];
  return fields.flatMap((field) => outputTexts(record[field], depth + 1));
}

function meaningfulLines(text: string): string[] {
  const lines: string[] = [];
  for (const raw of text
    .slice(0, SCANNED_CHARS)
    .replace(ansiSequence, '')
    .replace(wrapperTag, '\n')
    .split(/\r?\n|\r/)) {
    const line = raw.trim();
    if (!/[\p{L}\p{N}]/u.test(line)) continue;
    if (boilerplate.some((pattern) => pattern.test(line))) continue;
    lines.push(line);
  }
  return lines;
}

function clip(line: string): string {
  return line.length > ERROR_LINE_CHARS ? `${line.slice(0, ERROR_LINE_CHARS - 1)}…` : line;
}

/**
 * The line that says why a failed result failed, or null when neither its error nor its output
 * has one (only an exit code, or nothing at all).
 */
export function errorLineOf(result: { error?: unknown; output?: unknown }): string | null {
  // The error the loop recorded speaks first; the output only when the error says nothing more than an exit code.
  for (const source of [result.error, result.output]) {
    const lines = outputTexts(source).flatMap(meaningfulLines);
    if (lines.length === 0) continue;
    return clip(lines.find((line) => namesAnError.test(line)) ?? lines[0]!);
  }
  return null;
}
