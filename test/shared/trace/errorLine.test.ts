/** The line that says why a failed tool result failed, from each format's result shape. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ERROR_LINE_CHARS, errorLineOf } from '../../../shared/trace/errorLine';

describe('errorLineOf', () => {
  it('unwraps a Claude Code <tool_use_error> message', () => {
    const content = '<tool_use_error>File has not been read yet. Read it first before writing to it.</tool_use_error>';
    assert.equal(errorLineOf({ error: { message: content }, output: content }), 'File has not been read yet. Read it first before writing to it.');
  });

  it('skips the "Exit code 1" header of a Claude Code Bash error', () => {
    const content = "Exit code 1\n\nls: cannot access 'types/': No such file or directory";
    assert.equal(errorLineOf({ error: { message: content }, output: content }), "ls: cannot access 'types/': No such file or directory");
  });

  it('prefers the line that names the error over warnings before it', () => {
    const content = 'npm warn Unknown env config "store-dir".\n> app@1.0.0 test\nError: Cannot find module \'vitest\'\n    at Module._resolveFilename';
    assert.equal(errorLineOf({ error: { message: content } }), "Error: Cannot find module 'vitest'");
  });

  it('takes the first meaningful line when no line names an error', () => {
    assert.equal(errorLineOf({ error: 'Order 42 is not refundable\nsecond line' }), 'Order 42 is not refundable');
  });

  it('strips terminal colour codes and separator lines', () => {
    const content = '\u001b[31m⎯⎯⎯⎯⎯⎯⎯\u001b[39m\n\n\u001b[41m\u001b[1m FAIL \u001b[22m\u001b[49m src/client/NavUser.test.tsx > renders';
    assert.equal(errorLineOf({ output: content, error: { message: content } }), 'FAIL  src/client/NavUser.test.tsx > renders');
  });

  it('reads a Codex JSON output string when the error only repeats the exit code', () => {
    const output = JSON.stringify({ output: 'sed: apps/x.ts: No such file or directory\n', metadata: { exit_code: 1, duration_seconds: 0.1 } });
    assert.equal(errorLineOf({ error: { code: 'exit_code_1', message: 'exit code 1' }, output }), 'sed: apps/x.ts: No such file or directory');
  });

  it('skips the headers of a Codex exec_command / shell_command output', () => {
    const output =
      "Chunk ID: 7f3a\nWall time: 0.0123 seconds\nProcess exited with code 2\nOriginal token count: 14\nOutput:\npython: can't open file '/w/run.py': [Errno 2] No such file or directory\n";
    assert.equal(
      errorLineOf({ error: { code: 'exit_code_2', message: 'exit code 2' }, output }),
      "python: can't open file '/w/run.py': [Errno 2] No such file or directory",
    );
    assert.equal(
      errorLineOf({
        error: { message: 'exit code 1' },
        output: 'Exit code: 1\nWall time: 2 seconds\nOutput:\nFAILED tests/test_a.py::test_b - AssertionError',
      }),
      'FAILED tests/test_a.py::test_b - AssertionError',
    );
  });

  it('prefers stderr to stdout in an exec output object', () => {
    assert.equal(errorLineOf({ output: { stdout: 'building…\ndone', stderr: 'ld: symbol not found', exit_code: 1 } }), 'ld: symbol not found');
  });

  it('joins content blocks', () => {
    assert.equal(
      errorLineOf({
        output: [
          { type: 'text', text: '' },
          { type: 'text', text: 'Permission denied: /etc/shadow' },
        ],
      }),
      'Permission denied: /etc/shadow',
    );
  });

  it('returns null when there is nothing but an exit code, or nothing at all', () => {
    assert.equal(errorLineOf({ error: { code: 'exit_code_1', message: 'exit code 1' }, output: 'Exit code: 1\nWall time: 0 seconds\nOutput:\n' }), null);
    assert.equal(errorLineOf({ error: { code: 'failed' } }), null);
    assert.equal(errorLineOf({}), null);
    assert.equal(errorLineOf({ output: '   \n---\n' }), null);
  });

  it('clips a long line with an ellipsis', () => {
    const line = errorLineOf({ error: `error: ${'x'.repeat(1000)}` });
    assert.equal(line?.length, ERROR_LINE_CHARS);
    assert.ok(line?.endsWith('…'));
  });

  it('keeps unicode and hostile text as text', () => {
    assert.equal(errorLineOf({ error: '<script>alert(1)</script> ошибка: файл не найден 🚫' }), '<script>alert(1)</script> ошибка: файл не найден 🚫');
  });

  it('does not recurse without end into nested JSON', () => {
    let nested: unknown = 'error: deep';
    for (let index = 0; index < 20; index += 1) nested = JSON.stringify({ output: nested });
    assert.equal(errorLineOf({ output: nested }), null);
  });
});
