/** Markdown as text structure (src-renderer/components/markdownBlocks.ts): what the Output view's rendered mode draws. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { inlineParts, markdownBlocks } from '../../src-renderer/components/markdownBlocks';

describe('markdownBlocks', () => {
  it('reads headings, paragraphs, lists and code fences', () => {
    const blocks = markdownBlocks('## Findings\nThe build\nfailed.\n\n- one\n- **two**\n1. first\n```ts\nconst a = 1;\n# not a heading\n```\n---\n> quoted');
    assert.deepEqual(
      blocks.map((block) => block.kind),
      ['heading', 'paragraph', 'list', 'list', 'code', 'rule', 'quote'],
    );
    assert.deepEqual(blocks[0], { kind: 'heading', level: 2, parts: [{ kind: 'text', text: 'Findings' }] });
    assert.deepEqual(blocks[1], { kind: 'paragraph', parts: [{ kind: 'text', text: 'The build\nfailed.' }] });
    assert.deepEqual(blocks[2], { kind: 'list', ordered: false, items: [[{ kind: 'text', text: 'one' }], [{ kind: 'strong', text: 'two' }]] });
    assert.deepEqual(blocks[4], { kind: 'code', language: 'ts', text: 'const a = 1;\n# not a heading' });
  });

  it('runs an unclosed fence to the end and keeps HTML and links as text', () => {
    assert.deepEqual(markdownBlocks('```\ncode'), [{ kind: 'code', language: '', text: 'code' }]);
    assert.deepEqual(markdownBlocks('<img src=x onerror=alert(1)> [a](javascript:x)'), [
      { kind: 'paragraph', parts: [{ kind: 'text', text: '<img src=x onerror=alert(1)> [a](javascript:x)' }] },
    ]);
  });

  it('gives no blocks for empty text', () => {
    assert.deepEqual(markdownBlocks(''), []);
    assert.deepEqual(markdownBlocks('\n\n'), []);
  });
});

describe('inlineParts', () => {
  it('marks code spans and bold, leaves the rest', () => {
    assert.deepEqual(inlineParts('run `npm test` **now**, not *later*'), [
      { kind: 'text', text: 'run ' },
      { kind: 'code', text: 'npm test' },
      { kind: 'text', text: ' ' },
      { kind: 'strong', text: 'now' },
      { kind: 'text', text: ', not *later*' },
    ]);
    assert.deepEqual(inlineParts('a ` b'), [{ kind: 'text', text: 'a ` b' }]);
  });
});
