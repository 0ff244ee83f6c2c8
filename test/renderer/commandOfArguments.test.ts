/** The command a call ran, read from its (possibly cut) arguments summary. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { commandOfArguments } from '../../src-renderer/components/commandOfArguments';

describe('commandOfArguments', () => {
  it('unwraps a bash -lc argv to its script (Codex shell)', () => {
    assert.equal(commandOfArguments('{"command": ["bash", "-lc", "cargo test --workspace"], "workdir": "/w"}'), 'cargo test --workspace');
    assert.equal(commandOfArguments('{"command":["bash","-lc","ls"],"workdir":".","timeout_ms":120000}'), 'ls');
  });

  it('joins any other argv with spaces', () => {
    assert.equal(commandOfArguments('{"command":["git","status","--short"]}'), 'git status --short');
    assert.equal(commandOfArguments('{"command":["bash","-x","run.sh"]}'), 'bash -x run.sh');
  });

  it('reads a string command (Claude Code Bash, exec_command cmd), escapes decoded', () => {
    assert.equal(commandOfArguments('{"command":"ls src/legacy","description":"List"}'), 'ls src/legacy');
    assert.equal(commandOfArguments('{"cmd":"grep -n \\"x\\" a.txt\\tb"}'), 'grep -n "x" a.txt\tb');
    assert.equal(commandOfArguments('{"description":"List","command":"ls"}'), 'ls');
  });

  it('gives the part before the cut when the summary ends inside the command', () => {
    assert.equal(
      commandOfArguments('{"command":["bash","-lc","cd /Users/x/Dev && sed -n 1,200p apps/very/long/pa'),
      'cd /Users/x/Dev && sed -n 1,200p apps/very/long/pa…',
    );
    assert.equal(commandOfArguments('{"command":"npm run te'), 'npm run te…');
    assert.equal(commandOfArguments('{"command":"echo \\u00e9\\u00'), 'echo é…');
    assert.equal(commandOfArguments('{"command":["git","log",'), 'git log …');
  });

  it('is null when there is no command argument', () => {
    assert.equal(commandOfArguments(null), null);
    assert.equal(commandOfArguments('{"file_path":"/a.ts"}'), null);
    assert.equal(commandOfArguments('{"query":"the command: x"}'), null);
    assert.equal(commandOfArguments('{"command":42}'), null);
    assert.equal(commandOfArguments('{"command":[]}'), null);
    assert.equal(commandOfArguments('not json'), null);
  });
});
