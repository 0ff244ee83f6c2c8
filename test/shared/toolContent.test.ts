/** Tool outputs and arguments as a person reads them (shared/toolOutput.ts, shared/toolArguments.ts). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeToolOutput, looksLikeMarkdown, outputPreview } from '../../shared/toolOutput';
import { commandLine, readableArguments, shellQuote } from '../../shared/toolArguments';

describe('decodeToolOutput', () => {
  it('unwraps Codex output JSON written as a string: real newlines, exit code and duration', () => {
    const output = JSON.stringify({ output: 'sed: no such file\nsecond line\n', metadata: { exit_code: 2, duration_seconds: 0.25 } });
    const decoded = decodeToolOutput(output);
    assert.equal(decoded.text, 'sed: no such file\nsecond line\n');
    assert.equal(decoded.exitCode, 2);
    assert.equal(decoded.durationMs, 250);
    assert.equal(decoded.kind, 'text');
    assert.equal(decoded.decodedFrom, 'output/metadata JSON');
  });

  it('keeps a duration of 0.0 seconds as 0 ms, not as unknown', () => {
    assert.equal(decodeToolOutput(JSON.stringify({ output: 'x', metadata: { exit_code: 0, duration_seconds: 0.0 } })).durationMs, 0);
  });

  it('reads the shell tool and exec_command headers before Output:', () => {
    const shell = decodeToolOutput('Exit code: 1\nWall time: 1.5 seconds\nOutput:\nerror: boom\n');
    assert.deepEqual([shell.text, shell.exitCode, shell.durationMs], ['error: boom\n', 1, 1500]);
    const exec = decodeToolOutput('Chunk ID: 4f2a\nWall time: 0.0100 seconds\nProcess exited with code 0\nOriginal token count: 3\nOutput:\nok\n');
    assert.deepEqual([exec.text, exec.exitCode, exec.durationMs], ['ok\n', 0, 10]);
  });

  it('leaves text alone whose first lines only resemble headers', () => {
    const text = 'Exit code: 1\nsomething else\nOutput:\nrest';
    assert.deepEqual([decodeToolOutput(text).text, decodeToolOutput(text).exitCode], [text, null]);
    assert.equal(decodeToolOutput('Output:\nno headers before').exitCode, null);
  });

  it('joins content blocks (a Claude Code Task result) to their text, naming blocks without text', () => {
    const blocks = [
      { type: 'text', text: '## Findings\n- one\n- two' },
      { type: 'image', source: {} },
    ];
    const decoded = decodeToolOutput(blocks);
    assert.equal(decoded.text, '## Findings\n- one\n- two\n\n[image block]');
    assert.equal(decoded.kind, 'markdown');
    assert.equal(decodeToolOutput(JSON.stringify(blocks)).text, decoded.text);
    assert.equal(decodeToolOutput({ type: 'text', text: 'alone' }).text, 'alone');
  });

  it('pretty-prints other JSON and keeps text that only starts like JSON', () => {
    const decoded = decodeToolOutput({ files: ['a', 'b'] });
    assert.equal(decoded.kind, 'json');
    assert.equal(decoded.text, '{\n  "files": [\n    "a",\n    "b"\n  ]\n}');
    assert.equal(decodeToolOutput('{"output":"x","metadata":{},"extra":1}').kind, 'json');
    assert.equal(decodeToolOutput('{ not json').text, '{ not json');
    assert.equal(decodeToolOutput('[1, 2').kind, 'text');
  });

  it('gives empty text for a missing output', () => {
    assert.equal(decodeToolOutput(undefined).text, '');
    assert.equal(decodeToolOutput(null).text, '');
  });

  it('previews on one line, decoded: never a literal \\n', () => {
    assert.equal(outputPreview(JSON.stringify({ output: 'a\nb\n\tc', metadata: { exit_code: 0 } }), 100), 'a b c');
    assert.equal(outputPreview([{ type: 'text', text: 'first\nsecond' }], 8), 'first se');
  });
});

describe('looksLikeMarkdown', () => {
  it('sees headings, fences and lists with inline markup, not plain text', () => {
    assert.ok(looksLikeMarkdown('# Title\ntext'));
    assert.ok(looksLikeMarkdown('text\n```\ncode\n```'));
    assert.ok(looksLikeMarkdown('- **a** one\n- `b` two'));
    assert.ok(!looksLikeMarkdown('total 8\n-rw-r--r-- 1 a b 0 file\n-rw-r--r-- 1 a b 0 other'));
    assert.ok(!looksLikeMarkdown('#include <stdio.h>'));
  });
});

describe('readableArguments', () => {
  it('pretty-prints JSON text and objects alike', () => {
    assert.equal(readableArguments('{"path":"a.ts"}').pretty, '{\n  "path": "a.ts"\n}');
    assert.equal(readableArguments({ path: 'a.ts' }).pretty, '{\n  "path": "a.ts"\n}');
    assert.equal(readableArguments(undefined).pretty, '{}');
  });

  it('keeps arguments that are not JSON as written', () => {
    assert.deepEqual(readableArguments('{"path": '), { pretty: '{"path": ', json: false, command: null });
  });

  it('shows a command string as written and an argv with the shell wrapper taken off', () => {
    assert.equal(readableArguments({ command: 'ls -la' }).command, 'ls -la');
    assert.equal(readableArguments(JSON.stringify({ command: ['bash', '-lc', "sed -n '1,20p' a.ts"], workdir: '/w' })).command, "sed -n '1,20p' a.ts");
    assert.equal(readableArguments({ cmd: ['rg', '-n', 'two words', "it's"] }).command, `rg -n 'two words' 'it'\\''s'`);
    assert.equal(readableArguments({ command: ['ls', 3] }).command, null);
    assert.equal(readableArguments({ command: '' }).command, null);
    assert.equal(readableArguments({ path: 'x' }).command, null);
  });

  it('quotes what a shell would read otherwise', () => {
    assert.equal(shellQuote('plain/path.ts'), 'plain/path.ts');
    assert.equal(shellQuote(''), "''");
    assert.equal(shellQuote('$HOME'), "'$HOME'");
    assert.equal(commandLine(['python', '-c', 'print(1)', 'extra']), "python -c 'print(1)' extra");
    assert.equal(commandLine(['/bin/zsh', '-c', 'echo hi']), 'echo hi');
  });
});
