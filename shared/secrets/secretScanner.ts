/**
 * Finds credentials in text: provider API keys, tokens, `Authorization` header values, private
 * keys, JWTs (docs/semantics.md §14: credentials must never be in a trace, and a debugger that finds one
 * should say so). The same function reads a raw trace line — JSON text, where a private key's
 * newlines are the two characters `\n` — and a decoded string, where they are newlines: ingest
 * scans each line's bytes (as latin1, so a character index is a byte offset) to locate, mask and
 * redact what it finds, and the API masks every string it returns with it.
 *
 * Speed: traces run to a gigabyte and almost no line holds a credential. A text is first searched
 * for the literals that every credential contains (`anchorSearches`: a few `indexOf` scans for
 * rare characters); only a text with one is scanned with the rules, all alternatives of one
 * expression, and the checks that keep false positives low (boundaries, a token that looks
 * random) run only on what that matched.
 *
 * Every span is made of characters that need no escaping in a JSON string (no quote, no
 * backslash at its ends), so replacing it in a JSON line keeps the line valid JSON.
 */

export const secretKinds = [
  'anthropic_api_key',
  'openai_api_key',
  'google_api_key',
  'aws_access_key_id',
  'aws_secret_access_key',
  'github_token',
  'slack_token',
  'slack_webhook_url',
  'sendgrid_api_key',
  'stripe_secret_key',
  'huggingface_token',
  'authorization_header',
  'bearer_token',
  'private_key',
  'jwt',
] as const;
export type SecretKind = (typeof secretKinds)[number];

/**
 * How sure the scanner is that a span is a live credential (docs/semantics.md §14): `high` for a
 * provider's key whose shape (and checksum, where the provider has one) holds, `low` for what only
 * resembles one — a generic header or bearer value with few distinct characters or a placeholder
 * word (`Bearer invalidtoken123`), a GitHub token whose checksum fails.
 */
export type SecretConfidence = 'high' | 'low';

/** A credential in a text: `text.slice(start, end)` is its value. */
export interface SecretSpan {
  kind: SecretKind;
  start: number;
  end: number;
  confidence: SecretConfidence;
}

/** How each kind is named in a mask and a finding: short, recognisable. */
export const secretLabels: Readonly<Record<SecretKind, string>> = {
  anthropic_api_key: 'anthropic key',
  openai_api_key: 'openai key',
  google_api_key: 'google key',
  aws_access_key_id: 'aws key id',
  aws_secret_access_key: 'aws secret key',
  github_token: 'github token',
  slack_token: 'slack token',
  slack_webhook_url: 'slack webhook',
  sendgrid_api_key: 'sendgrid key',
  stripe_secret_key: 'stripe key',
  huggingface_token: 'hugging face token',
  authorization_header: 'credential',
  bearer_token: 'bearer token',
  private_key: 'private key',
  jwt: 'jwt',
};

/** The separator between a name and its value: `: "`, `=`, `\": \"` (in raw JSON text), … */
const assignment = String.raw`(?:\\?["'])?\s*[:=]\s*(?:\\?["'])?`;
/** A `/` of a URL, which raw JSON may write as `\/`. */
const slash = String.raw`\\?/`;

/**
 * Each rule is one alternative of `scanner`, in this order (at one position the first that matches
 * wins, so the longer prefixes come first). A rule with a `value` group has its span there: the
 * name before it (`Authorization: Bearer `) stays readable.
 */
const rules: readonly { kind: SecretKind; pattern: string }[] = [
  { kind: 'anthropic_api_key', pattern: String.raw`sk-ant-[a-z]{3,8}\d{2}-[A-Za-z0-9_\-]{32,}` },
  { kind: 'openai_api_key', pattern: String.raw`sk-(?:proj|svcacct|admin)-[A-Za-z0-9_\-]{32,}|sk-[A-Za-z0-9]{32,}` },
  { kind: 'google_api_key', pattern: String.raw`AIza[0-9A-Za-z_\-]{35}` },
  { kind: 'aws_access_key_id', pattern: String.raw`(?:AKIA|ASIA)[0-9A-Z]{16}` },
  {
    kind: 'aws_secret_access_key',
    pattern: String.raw`(?:[Ss]ecret_?[Aa]ccess_?[Kk]ey|SECRET_ACCESS_KEY)${assignment}(?<awsValue>[A-Za-z0-9/+]{40})`,
  },
  { kind: 'github_token', pattern: String.raw`gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9]{22}_[A-Za-z0-9]{59}` },
  { kind: 'slack_token', pattern: String.raw`xox[abposr]-[A-Za-z0-9\-]{10,}` },
  {
    kind: 'slack_webhook_url',
    pattern: String.raw`https:${slash}${slash}hooks\.slack\.com${slash}(?:services|workflows|triggers)(?:${slash}[A-Za-z0-9_\-]+){2,}`,
  },
  { kind: 'sendgrid_api_key', pattern: String.raw`SG\.[A-Za-z0-9_\-]{22}\.[A-Za-z0-9_\-]{43}` },
  { kind: 'stripe_secret_key', pattern: String.raw`[sr]k_live_[A-Za-z0-9]{24,}` },
  { kind: 'huggingface_token', pattern: String.raw`hf_[A-Za-z0-9]{30,}` },
  {
    kind: 'authorization_header',
    pattern: String.raw`(?:[Aa]uthorization|AUTHORIZATION)${assignment}(?:(?:Bearer|bearer|Basic|basic|Token|token)\s+)?(?<headerValue>[A-Za-z0-9._~+/\-]{8,}=*)`,
  },
  { kind: 'bearer_token', pattern: String.raw`[Bb]earer\s+(?<bearerValue>[A-Za-z0-9._~+/\-]{20,}=*)` },
  {
    kind: 'private_key',
    // The body up to the END line: base64, line breaks (real or JSON-escaped), PEM headers. Without
    // an END line (a cut key) the body runs to the end of the string.
    pattern: String.raw`-----BEGIN[A-Z0-9 ]{0,40} PRIVATE KEY-----(?:[^"\\\-]|\\[nrt]|-(?!----END)){0,16384}(?:-----END[A-Z0-9 ]{0,40} PRIVATE KEY-----)?`,
  },
  { kind: 'jwt', pattern: String.raw`eyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{16,}` },
];

const valueGroups = ['awsValue', 'headerValue', 'bearerValue'] as const;

/**
 * Literals at least one of which every match of `rules` contains (the tests' positive cases pass
 * through this filter, so a rule it would miss fails them), grouped by the `needle` they are
 * searched for with: a character of theirs that is rare in traces (an upper-case letter, `J`, `z`,
 * `_`), or the whole literal when all its characters are common. `indexOf` finds a needle at
 * memchr speed, several times faster than one regular expression of all the literals, which tries
 * them at every `s`, `c` or `e`; a literal is then compared only where its needle is.
 */
const anchorSearches: readonly {
  needle: string;
  literals: readonly { literal: string; offset: number }[];
  before: ReadonlySet<number> | null;
}[] = [
  { needle: 'K', literals: ['ccessK', 'CCESS_KEY', 'PRIVATE KEY'] },
  { needle: 'A', literals: ['AIza', 'AKIA', 'ASIA', 'UTHORIZATION'] },
  { needle: 'J', literals: ['eyJ'] },
  { needle: 'G', literals: ['SG.'] },
  { needle: 'z', literals: ['uthorization'] },
  { needle: 'B', literals: ['Bearer'] },
  { needle: 'k', literals: ['sk-', 'k_live_', 'slack.com', 'ccessk'] },
  { needle: '_', literals: ['ccess_', 'ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_', 'github_pat_', 'hf_'] },
  { needle: 'xox', literals: ['xox'] },
  { needle: 'bearer', literals: ['bearer'] },
].map(({ needle, literals }) => {
  const placed = literals.map((literal) => ({ literal, offset: literal.indexOf(needle) }));
  return { needle, literals: placed, before: charactersBefore(placed) };
});

/**
 * The characters the literals have just before their needle, or null when one starts with it. A
 * needle that is common in traces (`_` in every JSON key of a logged request) is then let go at
 * one comparison wherever it follows another character (`tool_calls`, `finish_reason`), instead of
 * one per literal.
 */
function charactersBefore(literals: readonly { literal: string; offset: number }[]): ReadonlySet<number> | null {
  if (literals.some(({ offset }) => offset === 0)) return null;
  return new Set(literals.map(({ literal, offset }) => literal.charCodeAt(offset - 1)));
}

/** Whether `text` holds one of the literals of `anchorSearches`: a text without one holds no credential. */
function holdsAnchor(text: string): boolean {
  for (const { needle, literals, before } of anchorSearches) {
    for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + 1)) {
      if (before !== null && !before.has(text.charCodeAt(at - 1))) continue;
      for (const { literal, offset } of literals) if (text.startsWith(literal, at - offset)) return true;
    }
  }
  return false;
}

/** One named group per rule (`r0`, `r1`, …), which says which rule matched. */
const scanner = new RegExp(rules.map((rule, index) => `(?<r${index}>${rule.pattern})`).join('|'), 'g');

function isTokenCharacter(code: number): boolean {
  return (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122);
}

/**
 * Whether a match at `start` begins a token: after a character that is not a letter or digit — or
 * after a JSON escape (`\n`, `\t`, `\u0022`), whose letters are not part of the text.
 */
function startsToken(text: string, start: number): boolean {
  if (start === 0 || !isTokenCharacter(text.charCodeAt(start - 1))) return true;
  if (start >= 2 && text[start - 2] === '\\' && 'nrtbf'.includes(text[start - 1] ?? '')) return true;
  return start >= 6 && text[start - 6] === '\\' && text[start - 5] === 'u';
}

/**
 * Whether a credential after a name (`Authorization:`, `Bearer`) looks like one rather than a word
 * or a placeholder (`Bearer YOUR_TOKEN`, "bearer of bad news"): letters mixed with digits, or
 * both cases in a long token.
 */
function looksRandom(value: string): boolean {
  const digits = /\d/.test(value);
  const lower = /[a-z]/.test(value);
  const upper = /[A-Z]/.test(value);
  return (digits && (lower || upper)) || (lower && upper && value.length >= 12);
}

/** A base64 or base64url character other than padding: what an encoded blob is made of. */
function isBlobCharacter(code: number): boolean {
  return isTokenCharacter(code) || code === 43 /* + */ || code === 47 /* / */ || code === 45 /* - */ || code === 95; /* _ */
}

/**
 * How far a run of base64 characters may go on past a match before the match is taken for part of
 * it: a key's neighbours are a separator or a short prefix (`KEY_sk-…`, `/v1/ghp_…`), a blob's are
 * more of the blob.
 */
const blobMargin = 16;

/**
 * String values that are opaque by definition: encrypted reasoning, thinking signatures, base64
 * images and files. Matched on the text before a value's opening quote, raw (`"key":"`) or inside
 * an escaped JSON string (`\"key\": \"`).
 */
const opaqueKey = /(?:encrypted_?[Cc]ontent|[Ss]ignature|b64_json|(?:^|[^A-Za-z_])data)\\?"\s*:\s*\\?"$/;
/** A data URL's header (`data:image/png;base64,`): what follows it is an encoded file. */
const dataUrlHeader = /data:[\w.+-]+\/[\w.+-]+(?:;[\w.+-]+=[\w.+-]+)*;base64,$/;

/**
 * Whether `text.slice(start, end)` is a fragment of an encoded blob rather than a credential: it
 * lies inside a run of base64 characters that goes on past it — a key is a token of its own, and
 * random base64 holds `hf_…`, `AIza…`, `sk-…` by chance — or inside the value of an opaque field
 * (or a data URL) without being that whole value. Looks only outward from a match, and at most
 * `blobMargin` characters each way, so it costs nothing on lines without one.
 */
function insideOpaqueValue(text: string, start: number, end: number): boolean {
  let before = start;
  while (before > 0 && start - before < blobMargin && isBlobCharacter(text.charCodeAt(before - 1))) before -= 1;
  let after = end;
  while (after < text.length && after - end < blobMargin && isBlobCharacter(text.charCodeAt(after))) after += 1;
  if (start - before >= blobMargin || after - end >= blobMargin) return true;
  if (before === start && after === end) return false;
  const head = text.slice(Math.max(0, before - 64), before);
  return opaqueKey.test(head) || dataUrlHeader.test(head);
}

/** Shannon entropy of `value` in bits per character: ~5.9 for random base64, under 3 for words. */
function entropyBits(value: string): number {
  const counts = new Map<string, number>();
  for (const character of value) counts.set(character, (counts.get(character) ?? 0) + 1);
  let bits = 0;
  for (const count of counts.values()) {
    const share = count / value.length;
    bits -= share * Math.log2(share);
  }
  return bits;
}

/** Words that make a value a placeholder or test fixture rather than a live credential. */
const placeholderWord = /invalid|test|fake|dummy|example|sample|placeholder|changeme|secret|password|token|your|mock|redacted|xxxx|1234|abcd/i;

/**
 * The bits per character below which a generic value is more likely a word than a random token:
 * 3.5, less for a short value, which cannot reach it (8 characters hold at most 3 bits each).
 */
function minimumGenericEntropy(length: number): number {
  return Math.min(3.5, Math.log2(length) - 0.7);
}

function confidence(kind: SecretKind, value: string): SecretConfidence {
  if (kind === 'authorization_header' || kind === 'bearer_token') {
    return placeholderWord.test(value) || entropyBits(value) < minimumGenericEntropy(value.length) ? 'low' : 'high';
  }
  if (kind === 'github_token' && !value.startsWith('github_pat_')) return githubChecksumHolds(value) ? 'high' : 'low';
  return 'high';
}

const base62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

const crcTable = Array.from({ length: 256 }, (_, byte) => {
  let crc = byte;
  for (let bit = 0; bit < 8; bit += 1) crc = crc & 1 ? 0xedb88320 ^ (crc >>> 1) : crc >>> 1;
  return crc >>> 0;
});

function crc32(text: string): number {
  let crc = 0xffffffff;
  for (let index = 0; index < text.length; index += 1) crc = (crc >>> 8) ^ (crcTable[(crc ^ text.charCodeAt(index)) & 0xff] ?? 0);
  return (crc ^ 0xffffffff) >>> 0;
}

/** The six base62 characters GitHub appends to a token's 30 random ones: their CRC32, zero-padded. */
export function githubChecksum(random: string): string {
  let value = crc32(random);
  let digits = '';
  do {
    digits = base62[value % 62] + digits;
    value = Math.floor(value / 62);
  } while (value > 0);
  return digits.padStart(6, '0');
}

/** Whether a classic token (`ghp_` + 30 random + 6 checksum) carries its own checksum. */
function githubChecksumHolds(token: string): boolean {
  const body = token.slice(4);
  return body.length === 36 && githubChecksum(body.slice(0, 30)) === body.slice(30);
}

/** The provider kind of a credential found after a name, when the whole of it is a known key. */
function providerKind(value: string): SecretKind | null {
  for (const found of scan(value)) {
    if (found.start === 0 && found.end === value.length && found.kind !== 'authorization_header' && found.kind !== 'bearer_token') return found.kind;
  }
  return null;
}

function* scan(text: string): Generator<SecretSpan> {
  if (!holdsAnchor(text)) return;
  const regex = new RegExp(scanner);
  let match: RegExpExecArray | null;
  while ((match = regex.exec(text)) !== null) {
    const groups = match.groups ?? {};
    const rule = rules.find((_, index) => groups[`r${index}`] !== undefined);
    if (rule === undefined) break;
    const valueGroup = valueGroups.map((name) => groups[name]).find((value) => value !== undefined);
    const value = valueGroup ?? match[0];
    const start = valueGroup === undefined ? match.index : match.index + match[0].length - valueGroup.length;
    const end = start + value.length;
    const named = valueGroup !== undefined;
    const accepted =
      startsToken(text, match.index) &&
      !insideOpaqueValue(text, start, end) &&
      (named || rule.kind === 'private_key' || !isTokenCharacter(text.charCodeAt(end))) &&
      (rule.kind !== 'authorization_header' && rule.kind !== 'bearer_token' ? true : looksRandom(value)) &&
      (rule.kind !== 'openai_api_key' || /\d/.test(value));
    if (!accepted) {
      // Not a credential here; one may still start inside what was matched.
      regex.lastIndex = match.index + 1;
      continue;
    }
    const kind = rule.kind === 'authorization_header' || rule.kind === 'bearer_token' ? (providerKind(value) ?? rule.kind) : rule.kind;
    yield { kind, start, end, confidence: confidence(kind, value) };
  }
}

/** The credentials in `text`, in order, none overlapping. */
export function findSecrets(text: string): SecretSpan[] {
  return [...scan(text)];
}

/** The part of a credential that says what it is and nothing more: `sk-ant-`, `ghp_`, `AKIA`. */
function publicPrefix(kind: SecretKind, value: string): string {
  switch (kind) {
    case 'anthropic_api_key':
      return 'sk-ant-';
    case 'openai_api_key':
      return /^sk-(?:proj|svcacct|admin)-/.exec(value)?.[0] ?? 'sk-';
    case 'google_api_key':
    case 'aws_access_key_id':
      return value.slice(0, 4);
    case 'github_token':
    case 'huggingface_token':
    case 'stripe_secret_key':
      return /^[a-z_]*?_(?:live_|pat_)?/.exec(value)?.[0] ?? '';
    case 'slack_token':
      return value.slice(0, 5);
    case 'slack_webhook_url':
      return 'https://hooks.slack.com/';
    case 'sendgrid_api_key':
      return 'SG.';
    case 'jwt':
      return 'eyJ';
    case 'private_key':
      // Without the header's closing dashes, so that a mask is not taken for the start of a key.
      return /^-----BEGIN[A-Z0-9 ]* PRIVATE KEY/.exec(value)?.[0] ?? '';
    case 'aws_secret_access_key':
    case 'authorization_header':
    case 'bearer_token':
      return '';
  }
}

/** What a view shows instead of a credential: its kind and public prefix, never its value. */
export function secretMask(kind: SecretKind, value: string): string {
  const prefix = publicPrefix(kind, value);
  return `${prefix === '' ? '' : `${prefix}…`}•••• [${secretLabels[kind]} masked]`;
}

/** `text` with each credential in it replaced by `replacement(span, value)`. */
export function replaceSecrets(
  text: string,
  replacement: (span: SecretSpan, value: string) => string,
  spans: readonly SecretSpan[] = findSecrets(text),
): string {
  if (spans.length === 0) return text;
  let out = '';
  let at = 0;
  for (const span of spans) {
    out += text.slice(at, span.start) + replacement(span, text.slice(span.start, span.end));
    at = span.end;
  }
  return out + text.slice(at);
}

/** `text` with every credential masked (secretMask). */
export function maskSecrets(text: string): string {
  return replaceSecrets(text, (span, value) => secretMask(span.kind, value));
}

/**
 * A value with every string in it masked (keys included), however deep: what the API does to a
 * response before it leaves. Values without a credential come back as they are (same object).
 */
export function maskSecretsDeep<T>(value: T): T {
  if (typeof value === 'string') return maskSecrets(value) as T;
  if (Array.isArray(value)) {
    let copy: unknown[] | null = null;
    value.forEach((item: unknown, index) => {
      const masked = maskSecretsDeep(item);
      if (masked !== item) (copy ??= [...value])[index] = masked;
    });
    return (copy ?? value) as T;
  }
  if (typeof value === 'object' && value !== null) {
    let copy: Record<string, unknown> | null = null;
    for (const [key, item] of Object.entries(value)) {
      const maskedKey = maskSecrets(key);
      const masked = maskSecretsDeep(item);
      if (masked !== item || maskedKey !== key) {
        copy ??= { ...(value as Record<string, unknown>) };
        if (maskedKey !== key) delete copy[key];
        copy[maskedKey] = masked;
      }
    }
    return (copy ?? value) as T;
  }
  return value;
}

/** What a credential is replaced with in a redacted copy (`loopscope redact`, an export with content): its kind, never its value. */
export function redactionPlaceholder(kind: SecretKind): string {
  return `[REDACTED:${kind}]`;
}
