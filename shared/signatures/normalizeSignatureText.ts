/**
 * The text of a failure signature (docs/semantics.md §15): the first line of an error or of the
 * offending value, with everything that differs from run to run for the same failure (times, ids,
 * hashes, paths, numbers) replaced by a placeholder, so that the same failure in hundreds of runs
 * gives one text. Words without digits (`ORDER_NOT_FOUND`, `FileNotFoundError`) are the failure
 * and stay as written, unless part of an e-mail address, a URL's path or a file path.
 *
 * Two properties matter more than any single mask:
 * - idempotence: a normalized text normalizes to itself, so texts can be normalized again (stored,
 *   compared, re-grouped) without drifting;
 * - bounded work: every pattern is free of nested ambiguous quantifiers and only starts where a
 *   word starts, and only the start of a long line is read, so adversarial input stays cheap.
 */

/** Longest signature text, in UTF-16 code units. */
export const SIGNATURE_TEXT_MAX = 200;

/**
 * How much of the line is masked. Masks shorten text (a long URL becomes its host), so more than
 * {@link SIGNATURE_TEXT_MAX} is read; reading the rest of a megabyte line would only cost time.
 */
const MASKED_PREFIX_MAX = 4_000;

const placeholderNames = ['time', 'uuid', 'hash', 'id', 'email', 'path', 'ip', 'n'] as const;
type PlaceholderName = (typeof placeholderNames)[number];
const placeholder = `<(?:${placeholderNames.join('|')})>`;

/*
 * A placeholder stands where a word was, so the boundaries count it as a word: `abc1234/x` gives
 * `<hash>/x`, and masking that again must not take `/x` for an absolute path.
 */
const notAfterWord = String.raw`(?<![\p{L}\p{N}]|${placeholder})`;
const notBeforeWord = String.raw`(?![\p{L}\p{N}]|${placeholder})`;
/** The characters of a path segment; a path only starts where a run of these does, so starts are few. */
const segmentChars = String.raw`\p{L}\p{N}_.@+~%\-`;
const segmentChar = `[${segmentChars}]`;
const notAfterSegment = String.raw`(?<!${segmentChar}|${placeholder})`;
const hex = '[0-9a-fA-F]';

/** One alternative per shape of path. A single slash between words (and/or, application/json) is none. */
const pathShapes = [
  // Windows, either slash: C:\Users\x.txt, C:/tmp/x.
  String.raw`[A-Za-z]:[\\/][${segmentChars}\\/]*`,
  // UNC: \\server\share\x.
  String.raw`\\\\${segmentChar}[${segmentChars}\\]*`,
  // Home and explicitly relative: ~/x, ./x, ../x.
  String.raw`(?:~|\.\.?)\/${segmentChar}[${segmentChars}/]*`,
  // Relative with two slashes or more: src/lib/util.
  String.raw`[\p{L}_.]${segmentChar}*\/${segmentChar}*\/[${segmentChars}/]*`,
  // Relative with one slash and a file extension that ends it (a full stop may follow): src/x.ts.
  String.raw`[\p{L}_.]${segmentChar}*\/${segmentChar}*\.\p{L}[\p{L}\p{N}]*(?!\.?(?:[${segmentChars.replace('.', '')}/]|${placeholder}))`,
  // Absolute: /a/b/c.py, /tmp.
  String.raw`\/${segmentChar}[${segmentChars}/]*`,
];

/**
 * The masks in priority order. The text is read left to right; at each character the first mask
 * that matches there replaces what it matches, and reading goes on after the replacement. A mask
 * only starts where no word ends, so nothing is masked from the middle of a word.
 */
const masks: readonly { name: PlaceholderName | 'url'; pattern: string }[] = [
  // Scheme and host are kept, the port becomes <n>, the path, query and fragment one /<path>: the
  // host says which service failed, the path mostly holds ids.
  {
    name: 'url',
    pattern: String.raw`(?<![A-Za-z0-9+.\-])(?<urlHost>[A-Za-z][A-Za-z0-9+.\-]*:\/\/(?:[A-Za-z0-9.\-]+|\[[0-9A-Fa-f:.]+\]))(?<urlPort>:\d+)?(?<urlRest>[/?#][^\s"'(){}\[\]]*)?`,
  },
  // Before ids and numbers, which would otherwise take a local part like `user_123456`.
  { name: 'email', pattern: String.raw`(?<![\p{L}\p{N}._%+\-]|${placeholder})[A-Za-z0-9._%+\-]+@[A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+)+` },
  // ISO 8601 / RFC 3339 dates and date-times: 2025-06-04, 2025-06-04T07:58:42.677Z, 2025-06-04 07:58:42+02:00.
  { name: 'time', pattern: String.raw`${notAfterWord}\d{4}-\d\d-\d\d(?:[Tt ]\d\d:\d\d(?::\d\d(?:[.,]\d+)?)?(?:[Zz]|[+-]\d\d:?\d\d)?)?${notBeforeWord}` },
  // Times of day: 07:58, 07:58:42, 07:58:42.677, 7:58PM.
  { name: 'time', pattern: String.raw`${notAfterWord}\d{1,2}:\d\d(?::\d\d(?:[.,]\d+)?)?(?:[Zz]|[AaPp][Mm])?${notBeforeWord}` },
  // Epoch seconds or milliseconds under a time-named key: "timestamp": 1749023922677, created_at=1749023922.
  // Elsewhere such a number is only a number (and masked as one below).
  {
    name: 'time',
    pattern: String.raw`(?=\d{9})(?<=(?:\b|_)(?:[\p{L}_]*(?:_at|At|[Tt]imestamp|[Tt]ime)|ts|date|created|updated)\\?["']?\s?[:=]\s?\\?["']?)\d{9,13}(?:\.\d+)?${notBeforeWord}`,
  },
  // Any version, any case, with dashes; without dashes a UUID is a 32-character hash below.
  { name: 'uuid', pattern: `${notAfterWord}${hex}{8}-${hex}{4}-${hex}{4}-${hex}{4}-${hex}{12}${notBeforeWord}` },
  // Git SHAs (short and long), sha256, Mongo ObjectIds: 7 or more hex characters with a digit and a
  // letter, so that a number (`1234567`) or a word (`deadbeef`, `facade`) is not taken.
  { name: 'hash', pattern: String.raw`${notAfterWord}(?=${hex}*\d)(?=${hex}*[a-fA-F])${hex}{7,}${notBeforeWord}` },
  // Provider ids (req_011CY15…, chatcmpl-9x…, call_abc123, toolu_01…, msg_01…) and any other
  // `word_`/`word-` followed by 6 or more letters and digits with a digit among them. A provider
  // prefix also takes 16 or more mixed-case letters without a digit: random ids have none now and then.
  {
    name: 'id',
    pattern: String.raw`${notAfterWord}(?:[A-Za-z]+[_\-](?=[A-Za-z]*\d)[A-Za-z0-9]{6,}|(?:chatcmpl|call|toolu|msg|req|resp|run|thread|asst|file|batch)[_\-](?=[A-Za-z0-9]*[a-z])(?=[A-Za-z0-9]*[A-Z])[A-Za-z0-9]{16,})${notBeforeWord}`,
  },
  // Paths, of the shapes above. A path often names the run's own workspace or file; the tool and
  // the words around it say what failed.
  { name: 'path', pattern: `${notAfterSegment}(?:${pathShapes.join('|')})` },
  { name: 'ip', pattern: String.raw`${notAfterWord}\d{1,3}(?:\.\d{1,3}){3}(?![\p{L}\p{N}]|${placeholder}|\.\d)` },
  // Numbers: an order id or a count differs per run and is not the failure. The sign belongs to the
  // number only where a word does not end just before it (`-5`, but `a-5` is `a-<n>`).
  {
    name: 'n',
    pattern: String.raw`${notAfterWord}-?(?:0[xX]${hex}+|\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)${notBeforeWord}`,
  },
];

const maskNames = masks.map((mask, index) => `${mask.name}${index}`);
const maskPattern = new RegExp(masks.map((mask, index) => `(?<${maskNames[index]}>${mask.pattern})`).join('|'), 'gu');

function maskText(text: string): string {
  return text.replace(maskPattern, (...args: unknown[]) => {
    const groups = args.at(-1) as Record<string, string | undefined>;
    if (groups.urlHost !== undefined) {
      return `${groups.urlHost}${groups.urlPort === undefined ? '' : ':<n>'}${groups.urlRest === undefined ? '' : '/<path>'}`;
    }
    const index = maskNames.findIndex((name) => groups[name] !== undefined);
    return `<${masks[index]?.name ?? 'n'}>`;
  });
}

/** The text up to `end` code units, one fewer if `end` would split a surrogate pair. */
function cutAt(text: string, end: number): string {
  if (text.length <= end) return text;
  const isHighSurrogate = /[\uD800-\uDBFF]/.test(text.charAt(end - 1));
  return text.slice(0, isHighSurrogate ? end - 1 : end);
}

/**
 * The masked text cut to {@link SIGNATURE_TEXT_MAX}. Cutting after masking, not before, puts the
 * cut at the same place for every run of a failure: before masking, an id longer in one run than
 * in another would move it. A placeholder is never cut in half. Cutting can leave a word that
 * masks differently on its own (`…abc1234z` cut to `…abc1234`, now a hash); characters are then
 * dropped until the text masks to itself, so that normalizing it again changes nothing.
 */
function cutMasked(masked: string): string {
  if (masked.length <= SIGNATURE_TEXT_MAX) return masked;
  let cut = cutAt(masked, SIGNATURE_TEXT_MAX);
  const openPlaceholder = /<[a-z]*$/.exec(cut);
  if (openPlaceholder && new RegExp(`^${placeholder}`).test(masked.slice(openPlaceholder.index))) cut = cut.slice(0, openPlaceholder.index);
  cut = cut.trimEnd();
  while (maskText(cut) !== cut) cut = cutAt(cut, cut.length - 1).trimEnd();
  return cut;
}

/**
 * The first non-empty line of `text`, trimmed, whitespace runs collapsed to one space, masked and
 * cut to {@link SIGNATURE_TEXT_MAX} characters. Idempotent.
 */
export function normalizeSignatureText(text: string): string {
  // The first non-blank character starts the first non-empty line (its leading blanks are trimmed
  // anyway); found without splitting the text, which may hold a million lines.
  const start = text.search(/\S/);
  if (start === -1) return '';
  const lineBreak = /[\r\n]/g;
  lineBreak.lastIndex = start;
  const line = text.slice(start, lineBreak.exec(text)?.index ?? text.length);
  return cutMasked(maskText(cutAt(line, MASKED_PREFIX_MAX).replace(/\s+/g, ' ').trimEnd()));
}
