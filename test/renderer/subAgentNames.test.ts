import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { childRunName, missingTranscriptNote } from '../../src-renderer/views/subAgentNames';

describe('childRunName', () => {
  it("drops the parent's id from a child's id", () => {
    assert.equal(childRunName('3b8e/agent-a3f9c21', '3b8e'), 'agent-a3f9c21');
    assert.equal(childRunName('s/sidechain-2', 's'), 'sidechain-2');
  });

  it('keeps an id the parent does not prefix at a slash, or that is only the prefix', () => {
    assert.equal(childRunName('3b8e0/agent-x', '3b8e'), '3b8e0/agent-x');
    assert.equal(childRunName('other', '3b8e'), 'other');
    assert.equal(childRunName('3b8e/', '3b8e'), '3b8e/');
  });
});

describe('missingTranscriptNote', () => {
  it('names the file and every folder looked in', () => {
    assert.equal(
      missingTranscriptNote({ file: 'agent-b7.jsonl', lookedIn: ['/links/s/subagents', '/real/s/subagents'] }, 's/agent-b7'),
      'sub-agent transcript agent-b7.jsonl not found; looked in /links/s/subagents and in /real/s/subagents',
    );
  });

  it('names the run when no file would hold it, and says when nothing was looked in', () => {
    assert.equal(missingTranscriptNote({ file: null, lookedIn: [] }, 's/agent-b7'), 'sub-agent run s/agent-b7 is not in this trace');
  });
});
