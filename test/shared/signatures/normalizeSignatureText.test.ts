/** The text of a failure signature (docs/semantics.md §15): what two failures may differ in and still be one failure. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { normalizeSignatureText, SIGNATURE_TEXT_MAX } from '../../../shared/signatures/normalizeSignatureText';

const normalizes = (text: string, expected: string): void => assert.equal(normalizeSignatureText(text), expected, text);
const same = (a: string, b: string): void => assert.equal(normalizeSignatureText(a), normalizeSignatureText(b), `${a}\n${b}`);
const different = (a: string, b: string): void => assert.notEqual(normalizeSignatureText(a), normalizeSignatureText(b), `${a}\n${b}`);

describe('normalizeSignatureText: ids and hashes', () => {
  it('provider ids: OpenAI chatcmpl- and call_, Anthropic toolu_, msg_ and req_', () => {
    normalizes('completion chatcmpl-9xAbCdEf0123456789GhIjKlMnOp failed', 'completion <id> failed');
    normalizes('no result for call_abc123', 'no result for <id>');
    normalizes('no result for call_Xk3pQ9rT2vLm8NwY5zB1cD4e', 'no result for <id>');
    normalizes('tool_use toolu_01A09q90qw90lq917835lq9 has no tool_result', 'tool_use <id> has no tool_result');
    normalizes('message msg_01XFDUDYJgAACzvnptvVoYEL', 'message <id>');
    normalizes('overloaded_error: Overloaded (req_011CY15QS2LGwAeBxdfa6e1V)', 'overloaded_error: Overloaded (<id>)');
  });

  it('any word_ or word- followed by 6 or more letters and digits with a digit', () => {
    normalizes('order ord_7781a2 not found', 'order <id> not found');
    normalizes('ORDER-123456 missing', '<id> missing');
    normalizes('batch_job-x1y2z3 stuck', 'batch_<id> stuck');
  });

  it('a provider prefix also takes a long random id without a digit, a generic one does not', () => {
    normalizes('unknown call_AbCdEfGhIjKlMnOpQrStUvWx', 'unknown <id>');
    normalizes('unknown thing_AbCdEfGhIjKlMnOpQrStUvWx', 'unknown thing_AbCdEfGhIjKlMnOpQrStUvWx');
  });

  it('UUIDs of any version and case', () => {
    normalizes('run 3f2b8c1e-9d4a-4e5f-8a7b-6c5d4e3f2a1b failed', 'run <uuid> failed');
    normalizes('run 01976d4e-7a2b-7c3d-8e4f-5a6b7c8d9e0f failed', 'run <uuid> failed');
    normalizes('run 3F2B8C1E-9D4A-4E5F-8A7B-6C5D4E3F2A1B failed', 'run <uuid> failed');
  });

  it('hex hashes: Mongo ObjectId, git SHA short and long, sha256', () => {
    normalizes('document 507f1f77bcf86cd799439011 not found', 'document <hash> not found');
    normalizes('commit a1b2c3d is not an ancestor of 9fceb02d0ae598e95dc970b74767f19372d61af8', 'commit <hash> is not an ancestor of <hash>');
    normalizes('checksum e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855 mismatch', 'checksum <hash> mismatch');
  });

  it('hex without a digit is a word, hex without a letter a number', () => {
    normalizes('deadbeef facade 1234567', 'deadbeef facade <n>');
  });
});

describe('normalizeSignatureText: paths, e-mails, URLs, IPs', () => {
  it('paths of each shape', () => {
    normalizes('cannot open /home/bob/project/main.py', 'cannot open <path>');
    normalizes('cannot open /tmp', 'cannot open <path>');
    normalizes('cannot open src/x.ts', 'cannot open <path>');
    normalizes('cannot open src/lib/util', 'cannot open <path>');
    normalizes('cannot open ./build and ../out', 'cannot open <path> and <path>');
    normalizes('cannot open ~/notes/todo.md', 'cannot open <path>');
    normalizes('cannot open C:\\Users\\bob\\file.txt or C:/tmp/x', 'cannot open <path> or <path>');
    normalizes('cannot open \\\\server\\share\\x', 'cannot open <path>');
  });

  it('a path keeps its line and column apart, and a sentence its last full stop', () => {
    normalizes('src/x.ts:12:5 failed. Open src/x.ts.', '<path>:<n>:<n> failed. Open <path>.');
  });

  it('one slash between words without a file extension is no path', () => {
    normalizes('and/or application/json HTTP/1.1', 'and/or application/json HTTP/<n>');
  });

  it('e-mail addresses', () => {
    normalizes('no account for bob.smith+test@example.co.uk', 'no account for <email>');
    normalizes('no account for user_123456@mail.example.com', 'no account for <email>');
  });

  it('URLs keep scheme and host, mask port, path, query and fragment', () => {
    normalizes('GET https://api.example.com/v1/orders/123?expand=items failed', 'GET https://api.example.com/<path> failed');
    normalizes('connect http://localhost:8080/health refused', 'connect http://localhost:<n>/<path> refused');
    normalizes('see https://example.com', 'see https://example.com');
    normalizes('see https://example.com#top', 'see https://example.com/<path>');
  });

  it('IPv4 addresses, with their port a number', () => {
    normalizes('connect 192.168.1.10:5432 refused', 'connect <ip>:<n> refused');
  });
});

describe('normalizeSignatureText: numbers and times', () => {
  it('integers, decimals, negatives, thousands separators, hex, exponents', () => {
    normalizes('got 42 and 3.14 and -5 and 1,234 and 12,345.67 and 0x1F and 1e10', 'got <n> and <n> and <n> and <n> and <n> and <n> and <n>');
  });

  it('a hyphen after a word is no sign, and digits inside a word are part of it', () => {
    normalizes('x=-5 but a-5 and 10-5', 'x=<n> but a-<n> and <n>-<n>');
    normalizes('S3Exception E11000 utf8 sha256', 'S3Exception E11000 utf8 sha256');
    normalizes('order_12345 not found', 'order_<n> not found');
  });

  it('ISO 8601 / RFC 3339 date-times and dates', () => {
    normalizes('rate limited at 2025-06-04T07:58:42.677Z', 'rate limited at <time>');
    normalizes('rate limited at 2025-06-04 07:58:42+02:00', 'rate limited at <time>');
    normalizes('expired on 2025-06-04.', 'expired on <time>.');
  });

  it('times of day', () => {
    normalizes('[07:58:42] upstream timeout at 7:58PM', '[<time>] upstream timeout at <time>');
    normalizes('Date: Wed, 04 Jun 2025 07:58:42.120 GMT', 'Date: Wed, <n> Jun <n> <time> GMT');
  });

  it('epoch seconds and milliseconds under a time-named key, a number elsewhere', () => {
    normalizes('{"status":"pending","timestamp":1749023922677}', '{"status":"pending","timestamp":<time>}');
    normalizes('checked_at=1749023922 createdAt: "1749023922"', 'checked_at=<time> createdAt: "<time>"');
    normalizes('order 1749023922 not found', 'order <n> not found');
  });
});

describe('normalizeSignatureText: what is kept', () => {
  it('messages that differ only in masked parts are equal', () => {
    same(
      'ORDER_NOT_FOUND: order 8812 not found (req_011CY15QS2LGwAeBxdfa6e1V at 2025-06-04T07:58:42.677Z)',
      'ORDER_NOT_FOUND: order 91 not found (req_011CY16AB7KqPdYz3RtUv9Wx at 2025-06-05T11:02:03Z)',
    );
    same(
      "FileNotFoundError: [Errno 2] No such file or directory: '/tmp/run-1/data.csv'",
      "FileNotFoundError: [Errno 2] No such file or directory: '/var/tmp/run-77/out/data.csv'",
    );
    same('GET https://api.example.com/orders/1 returned 503 from 10.0.0.1', 'GET https://api.example.com/orders/2/items returned 502 from 10.0.0.17');
    same(
      'user bob@example.com locked, session 3f2b8c1e-9d4a-4e5f-8a7b-6c5d4e3f2a1b',
      'user alice@example.org locked, session 01976D4E-7A2B-7C3D-8E4F-5A6B7C8D9E0F',
    );
  });

  it('different error names stay different, and so do different hosts', () => {
    different('ORDER_NOT_FOUND: order 8812', 'ORDER_CANCELLED: order 8812');
    different('FileNotFoundError: /tmp/x', 'PermissionError: /tmp/x');
    different('GET https://api.example.com/x failed', 'GET https://auth.example.com/x failed');
  });

  it('words without digits stay as written, and a quoted string is masked inside, not wholesale', () => {
    normalizes('ValueError: "invalid literal for int()"', 'ValueError: "invalid literal for int()"');
    normalizes(`KeyError: 'user 42 missing'`, `KeyError: 'user <n> missing'`);
  });
});

describe('normalizeSignatureText: the line and its length', () => {
  it('takes the first non-empty line, trimmed, with whitespace runs collapsed', () => {
    normalizes('\n  \r\n\t Traceback  (most recent\t\tcall last):  \n  File "x.py", line 3', 'Traceback (most recent call last):');
    normalizes('first\r\nsecond', 'first');
    normalizes('first\rsecond', 'first');
  });

  it('an empty or blank text gives an empty text', () => {
    normalizes('', '');
    normalizes(' \n\t\r\n ', '');
  });

  it(`cuts at ${SIGNATURE_TEXT_MAX} characters, after masking`, () => {
    const long = normalizeSignatureText('x'.repeat(500));
    assert.equal(long, 'x'.repeat(SIGNATURE_TEXT_MAX));
    // Masking lengthens `1` to `<n>`: the cut still holds the result to the limit.
    assert.ok(normalizeSignatureText('1 '.repeat(200)).length <= SIGNATURE_TEXT_MAX);
    // Ids of different lengths before the cut do not move it: the cut is made on the masked text.
    same(`ERR call_${'a1'.repeat(3)} ${'word '.repeat(60)}`, `ERR call_${'a1'.repeat(40)} ${'word '.repeat(60)}`);
  });

  it('never splits a surrogate pair or a placeholder', () => {
    const emoji = normalizeSignatureText(`${'x'.repeat(SIGNATURE_TEXT_MAX - 1)}😀`);
    assert.equal(emoji, 'x'.repeat(SIGNATURE_TEXT_MAX - 1));
    const placeholder = normalizeSignatureText(`${'x'.repeat(SIGNATURE_TEXT_MAX - 3)} /tmp/a/b`);
    assert.equal(placeholder, 'x'.repeat(SIGNATURE_TEXT_MAX - 3));
  });

  it('a word cut so that it would mask differently is shortened until it does not', () => {
    // `…abc1234z` is a word; cut to `…abc1234` it would be a hash, and normalizing again would change it.
    const cut = normalizeSignatureText(`${'x '.repeat((SIGNATURE_TEXT_MAX - 8) / 2)}abc1234z`);
    assert.equal(normalizeSignatureText(cut), cut);
    assert.ok(cut.length <= SIGNATURE_TEXT_MAX);
  });
});

describe('normalizeSignatureText: idempotence and bounded work', () => {
  it('a normalized text normalizes to itself', () => {
    for (const text of [
      'GET https://api.example.com/v1/x?y=1 at 2025-06-04T07:58:42Z from 10.0.0.1:443',
      'open src/x.ts:12:5 and 1/2 and abc1234/x and v1.2.3.4.5',
      'ts: 1749023922677 bob@example.com C:\\x\\y ~/a ./b',
      // Found by the property below: a number after a file extension, a sign after a host's colon.
      `a/.com${'a'.repeat(60)}.5%aaaa`,
      'http://C:-5#',
    ]) {
      const once = normalizeSignatureText(text);
      assert.equal(normalizeSignatureText(once), once);
    }
  });

  // Pieces that sit next to each other in every combination: masks, their boundaries and placeholders.
  const piece = fc.constantFrom(
    ...['a', 'f', 'G', 'é', '😀', '1', '0', '12', '2025-06-04', 'T', '07:58:42', 'Z', '+02:00', 'e', 'E', 'x', '0x', 'abc1234', 'call_', 'am'],
    ...['-', '_', '.', ',', '/', '\\', ':', '@', '~', '%', '+', '?', '#', '=', '"', "'", '(', ')', '<', '>', ' ', '\n', '\t'],
    ...['<n>', '<path>', '<id>', '<hash>', '<time>', '<ip>', 'http://', 'https://h.io', 'C:', '.com', 'ts=', ' ts: ', '1749023922677'],
    ...['[', ']', '::1', '_at', 'At', 'PM', '1,234', '-5', '.5', 'req_', '10.0.0.1', 'b@c.de', '3f2b8c1e-9d4a-4e5f-8a7b-6c5d4e3f2a1b'],
  );

  it('property: normalizing twice is normalizing once, and the result fits the limit', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.string({ unit: piece, maxLength: 40 }), fc.string({ unit: piece, minLength: 80, maxLength: 300 }), fc.string({ unit: 'grapheme' })),
        (text) => {
          const once = normalizeSignatureText(text);
          assert.equal(normalizeSignatureText(once), once);
          assert.ok(once.length <= SIGNATURE_TEXT_MAX);
        },
      ),
      { numRuns: 5000 },
    );
  });

  it('property: values in the masked places do not change the text', () => {
    const hash = fc.stringMatching(/^[0-9a-f]{40}$/).filter((value) => /\d/.test(value) && /[a-f]/.test(value));
    fc.assert(
      fc.property(
        fc.uuid(),
        fc.integer({ min: -1e9, max: 1e9 }),
        hash,
        fc.date({ min: new Date('2000-01-01'), max: new Date('2099-12-31'), noInvalidDate: true }),
        (uuid, number, sha, date) => {
          same(
            `E_CONFLICT: ${uuid} at ${date.toISOString()} moved ${number} items, head ${sha}`,
            'E_CONFLICT: 3f2b8c1e-9d4a-4e5f-8a7b-6c5d4e3f2a1b at 2025-06-04T07:58:42.677Z moved 7 items, head a1b2c3d',
          );
        },
      ),
    );
  });

  it('a 100 KB line of one character class, repeated, is normalized (no catastrophic backtracking)', () => {
    for (const unit of [
      'a',
      'f',
      '1',
      '-',
      '_',
      '.',
      '/',
      '\\',
      ':',
      '@',
      '~',
      ',',
      '<',
      '>',
      'é',
      '😀',
      'a-',
      'a_1',
      '1,234,',
      'a.a/',
      '-a',
      'a@a.',
      '1.',
      'ab12',
    ]) {
      const text = unit.repeat(Math.ceil(100_000 / unit.length));
      const once = normalizeSignatureText(text);
      assert.ok(once.length <= SIGNATURE_TEXT_MAX, unit);
      assert.equal(normalizeSignatureText(once), once, unit);
    }
    assert.equal(normalizeSignatureText(`${' \n'.repeat(100_000)}x`), 'x');
  });
});
