import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { findingTemplate, findingTemplateKey } from '../../shared/findingTemplate';

describe('findingTemplate: what makes two findings the same', () => {
  it('masks call ids and steps, so the same failure of many calls groups into one', () => {
    const a = findingTemplate('call Bash (toolu_01AbCdEf123, step 12) has invalid arguments: arguments redacted');
    const b = findingTemplate('call Bash (toolu_01XyZ999abc, step 40) has invalid arguments: arguments redacted');
    assert.equal(a, 'call Bash has invalid arguments: arguments redacted');
    assert.equal(a, b);
  });

  it('drops where an occurrence happened: "at line N", "(line N)"', () => {
    assert.equal(
      findingTemplate('the result for call Read (call_9f8e7d6c, step 2) was logged at line 5, before the call itself (line 9)'),
      'the result for call Read was logged, before the call itself',
    );
  });

  it('masks UUIDs and numbers; a hash of digits only is masked as a hash with letters is', () => {
    assert.equal(findingTemplate('[REDACTED len=83 sha=12345678]'), findingTemplate('[REDACTED len=230 sha=b4e1e5f7]'));
    assert.equal(findingTemplate('run fe5e1c67-53e7-4862-81ae-d0e013e3270b stopped after 1,234 steps'), 'run … stopped after … steps');
  });

  it('keeps what tells findings apart: the tool, the words of the message', () => {
    assert.notEqual(
      findingTemplate('Bash (call_abc123def) returned an error without an error code'),
      findingTemplate('Read (call_abc123def) returned an error without an error code'),
    );
    assert.notEqual(
      findingTemplate('call X (c1d2e3f4g5) has invalid arguments: not JSON'),
      findingTemplate('call X (c1d2e3f4g5) has invalid arguments: missing "path"'),
    );
  });

  it('leaves words alone: without digits, short codes, a word inside unicode text', () => {
    assert.equal(findingTemplate('refusal: the model declined the task'), 'refusal: the model declined the task');
    assert.equal(findingTemplate('returned an error E42'), 'returned an error E42');
    assert.equal(findingTemplate('café_2024ab über'), 'café_2024ab über');
    assert.notEqual(findingTemplate('returned an error E404'), findingTemplate('returned an error E500'));
  });

  it('a parenthesis with words in it stays', () => {
    assert.equal(findingTemplate('the run ended (status failed) at step 3'), 'the run ended (status failed)');
  });
});

describe('findingTemplateKey', () => {
  it('is stable and tells templates apart', () => {
    assert.equal(findingTemplateKey('a b'), findingTemplateKey('a b'));
    assert.notEqual(findingTemplateKey('a b'), findingTemplateKey('a c'));
    assert.match(findingTemplateKey(''), /^[0-9a-f]{8}-0$/);
  });
});
