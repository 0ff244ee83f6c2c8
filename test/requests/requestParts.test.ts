/** System prompt, tool definitions and parameters are diffed apart from the messages. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { diffRequests } from '../../shared/requests/diffRequests';
import { normalizeAnthropicMessagesRequest } from '../../shared/requests/normalizeRequest';
import { chatRequest, user } from './requestBodies';

const readFile = { type: 'function', function: { name: 'read_file', description: 'Read a file', parameters: { type: 'object', properties: { path: { type: 'string' } } } } };
const search = { type: 'function', function: { name: 'search', parameters: { type: 'object' } } };
const shell = { type: 'function', function: { name: 'shell', parameters: { type: 'object' } } };

describe('request parts diff', () => {
  it('names tools added, removed and whose schema changed', () => {
    const widened = { type: 'function', function: { ...readFile.function, parameters: { type: 'object', properties: { path: { type: 'string' }, limit: { type: 'integer' } } } } };
    const d = diffRequests(chatRequest([user('hi')], { tools: [readFile, search] }), chatRequest([user('hi')], { tools: [widened, shell] }));
    assert.deepEqual(d.tools.added, ['shell']);
    assert.deepEqual(d.tools.removed, ['search']);
    assert.deepEqual(d.tools.changed.map((c) => [c.name, c.description, c.parameters]), [['read_file', false, true]]);
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
