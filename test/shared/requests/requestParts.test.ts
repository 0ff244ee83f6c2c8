/** System prompt, tool definitions and parameters are diffed apart from the messages. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { diffParams, diffRequests, diffTools } from '../../../shared/requests/diffRequests';
import { prefixChangeFinding } from '../../../shared/requests/requestFindings';
import { normalizeAnthropicMessagesRequest } from '../../../shared/requests/apiRequestBodies';
import { chatRequest, user } from './requestBodies';

const readFile = {
  type: 'function',
  function: { name: 'read_file', description: 'Read a file', parameters: { type: 'object', properties: { path: { type: 'string' } } } },
};
const search = { type: 'function', function: { name: 'search', parameters: { type: 'object' } } };
const shell = { type: 'function', function: { name: 'shell', parameters: { type: 'object' } } };

describe('request parts diff', () => {
  it('names tools added, removed and whose schema changed', () => {
    const widened = {
      type: 'function',
      function: { ...readFile.function, parameters: { type: 'object', properties: { path: { type: 'string' }, limit: { type: 'integer' } } } },
    };
    const d = diffRequests(chatRequest([user('hi')], { tools: [readFile, search] }), chatRequest([user('hi')], { tools: [widened, shell] }));
    assert.deepEqual(d.tools.added, ['shell']);
    assert.deepEqual(d.tools.removed, ['search']);
    assert.deepEqual(
      d.tools.changed.map((c) => [c.name, c.description, c.parameters]),
      [['read_file', false, true]],
    );
  });

  it('reports each changed parameter before → after, and nothing for the same values in another key order', () => {
    const d = diffRequests(
      chatRequest([user('hi')], { temperature: 0.2, tool_choice: { type: 'function', function: { name: 'a' } }, stream: true }),
      chatRequest([user('hi')], { temperature: 0.7, tool_choice: { function: { name: 'a' }, type: 'function' }, max_tokens: 100 }),
    );
    assert.deepEqual(d.params, [
      { key: 'temperature', previous: 0.2, next: 0.7 },
      { key: 'stream', previous: true, next: undefined },
      { key: 'max_tokens', previous: undefined, next: 100 },
    ]);
  });

  it('says whether the system prompt changed', () => {
    const body = (system: string) => normalizeAnthropicMessagesRequest({ model: 'm', system, messages: [{ role: 'user', content: 'hi' }] })!;
    assert.equal(diffRequests(body('Be brief.'), body('Be brief.')).system.changed, false);
    assert.deepEqual(diffRequests(body('Be brief.'), body('Be thorough.')).system, { changed: true, previous: 'Be brief.', next: 'Be thorough.' });
  });
});

describe('tool definitions and parameters: the boundaries', () => {
  const withTools = (...tools: unknown[]) => chatRequest([user('hi')], { tools });
  const fn = (name: string, description: string | undefined, parameters: unknown = { type: 'object' }) => ({
    type: 'function',
    function: { name, description, parameters },
  });

  it('a tool whose description alone changed is changed (description, not schema), and the finding names it', () => {
    const d = diffRequests(withTools(fn('read_file', 'Read a file')), withTools(fn('read_file', 'Read a file. Today is Tuesday.')));
    assert.deepEqual(
      d.tools.changed.map((c) => [c.name, c.description, c.parameters, c.previous.description, c.next.description]),
      [['read_file', true, false, 'Read a file', 'Read a file. Today is Tuesday.']],
    );
    assert.deepEqual(d.prefix, { system: false, toolsAdded: [], toolsRemoved: [], toolsChanged: ['read_file'], toolsReordered: false });
    assert.match(prefixChangeFinding(2, d.prefix)?.message ?? '', /^Request 2 changes the tool definitions \(changed: read_file\) of request 1\./);
  });

  it('a description dropped is a change too; the same definitions in another key order are not', () => {
    assert.deepEqual(
      diffRequests(withTools(fn('ls', 'List')), withTools(fn('ls', undefined))).tools.changed.map((c) => c.description),
      [true],
    );
    const schema = { type: 'object', properties: { path: { type: 'string' } } };
    const sameSchema = { properties: { path: { type: 'string' } }, type: 'object' };
    assert.equal(diffRequests(withTools(fn('ls', 'List', schema)), withTools(fn('ls', 'List', sameSchema))).prefix, null);
  });

  it('the same tool array twice is no change', () => {
    const request = withTools(fn('ls', 'List'), fn('cat', 'Print'));
    assert.deepEqual(diffTools(request.tools, request.tools), { added: [], removed: [], changed: [], reordered: false });
  });

  it('two tools swapped are reordered even when their names joined read the same either way', () => {
    const d = diffRequests(withTools(fn('go', 'Go'), fn('gogo', 'Go twice')), withTools(fn('gogo', 'Go twice'), fn('go', 'Go')));
    assert.deepEqual(d.prefix, { system: false, toolsAdded: [], toolsRemoved: [], toolsChanged: [], toolsReordered: true });
    assert.equal(prefixChangeFinding(2, d.prefix)?.message.startsWith('Request 2 changes the tool definitions (sent in another order) of request 1.'), true);
  });

  it('any one tool added, removed or changed alone, or one added and one removed, is a prefix change', () => {
    const base = [fn('ls', 'List'), fn('cat', 'Print')];
    const prefixOf = (tools: unknown[]) => diffRequests(withTools(...base), withTools(...tools)).prefix;
    assert.deepEqual(prefixOf([...base, fn('rm', 'Remove')])?.toolsAdded, ['rm']);
    assert.deepEqual(prefixOf([base[0]])?.toolsRemoved, ['cat']);
    assert.deepEqual(prefixOf([base[0], fn('cat', 'Print', { type: 'object', required: ['path'] })])?.toolsChanged, ['cat']);
    const swapped = prefixOf([base[0], fn('rm', 'Remove')]);
    assert.deepEqual([swapped?.toolsAdded, swapped?.toolsRemoved, swapped?.toolsReordered], [['rm'], ['cat'], false]);
    assert.match(prefixChangeFinding(3, swapped ?? null)?.message ?? '', /changes the tool definitions \(added: rm; removed: cat\) of request 2\./);
  });

  it('the system prompt and the tools changed together are both named', () => {
    const previous = chatRequest([user('hi')], { tools: [fn('ls', 'List')] });
    const next = chatRequest([user('hi')], { tools: [fn('ls', 'List'), fn('cat', 'Print')] });
    next.system = 'Be brief.';
    const finding = prefixChangeFinding(2, diffRequests(previous, next).prefix);
    assert.match(finding?.message ?? '', /^Request 2 changes the system prompt and the tool definitions \(added: cat\) of request 1\./);
    assert.deepEqual(finding?.details, { request: 2, system: true, tools_added: ['cat'], tools_removed: [], tools_changed: [], tools_reordered: false });
  });

  it('a parameter present as null on one side and absent on the other changed; present as null on both did not', () => {
    const d = diffRequests(chatRequest([user('hi')], { stop: null, seed: null }), chatRequest([user('hi')], { seed: null }));
    assert.deepEqual(d.params, [{ key: 'stop', previous: null, next: undefined }]);
    assert.deepEqual(diffParams({}, { stop: null }), [{ key: 'stop', previous: undefined, next: null }]);
  });
});
