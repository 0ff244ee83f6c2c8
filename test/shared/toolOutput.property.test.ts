/**
 * A tool output's preview and search value (shared/toolOutput.ts) skip laying the output out for
 * reading (pretty JSON for the search value, the markdown check for both): they are the same as
 * taking them from the decoded output, as the straightforward references below do, on plain text,
 * Codex's output JSON and headers, content blocks, other JSON (as values and as text) and nothing.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { decodeToolOutput, outputPreview, outputSearchValue } from '../../shared/toolOutput';

function referencePreview(output: unknown, chars: number): string {
  return decodeToolOutput(output)
    .text.slice(0, chars * 4)
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, chars);
}

function referenceSearchValue(output: unknown): unknown {
  const decoded = decodeToolOutput(output);
  return decoded.kind === 'json' ? output : decoded.text;
}

const text = fc.oneof(
  fc.string({ maxLength: 60 }),
  fc.constantFrom('# Title\n\n- one\n- two **bold**', '```\ncode\n```', '  {"not": json', '[1, 2', 'Output:\nno headers before'),
);
const headers = fc
  .tuple(fc.integer({ min: -2, max: 3 }), fc.double({ min: 0, max: 10, noNaN: true }), text)
  .map(([code, seconds, body]) => `Exit code: ${code}\nWall time: ${seconds} seconds\nOutput:\n${body}`);
const blocks = fc.array(
  fc.oneof(
    text.map((value) => ({ type: 'text', text: value })),
    fc.constant({ type: 'image', source: { data: 'AAAA' } }),
  ),
  { maxLength: 3 },
);
const envelope = fc
  .tuple(text, fc.option(fc.integer({ min: 0, max: 2 })), fc.option(fc.double({ min: 0, max: 5, noNaN: true })))
  .map(([output, exitCode, seconds]) => ({ output, metadata: { exit_code: exitCode, duration_seconds: seconds } }));
const structured = fc.oneof(
  blocks,
  envelope,
  text.map((value) => ({ type: 'text', text: value })),
  fc.jsonValue({ maxDepth: 3 }),
);

const outputs = fc.oneof(
  text,
  headers,
  structured,
  structured.map((value) => JSON.stringify(value)),
  structured.map((value) => ` \n${JSON.stringify(value, null, 2)}`),
  fc.constantFrom(undefined, null),
);

describe('tool output: preview and search value', () => {
  it('property: the preview is the decoded text cut to one line', () => {
    fc.assert(
      fc.property(outputs, fc.integer({ min: 1, max: 80 }), (output, chars) => {
        assert.equal(outputPreview(output, chars), referencePreview(output, chars));
      }),
      { numRuns: 3000 },
    );
  });

  it('property: the search value is the output itself when it decodes to JSON, else its decoded text', () => {
    fc.assert(
      fc.property(outputs, (output) => {
        assert.deepEqual(outputSearchValue(output), referenceSearchValue(output));
      }),
      { numRuns: 3000 },
    );
  });
});
