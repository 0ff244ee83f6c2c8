/** The `findings` API's groups of identical findings (`templates`) and one group's occurrences (`templateKey`), over a real ingest. */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { ApiResponse } from '../../shared/api';
import { findingTemplate, findingTemplateKey } from '../../shared/findingTemplate';
import { startTestHost, type TestHost } from '../support/apiHarness';
import { repoRoot } from '../../devkit/repoPaths';

type Findings = ApiResponse<'findings'>;
const fixture = join(repoRoot, 'test', 'fixtures', 'ui', 'severity-and-repeats.jsonl');

describe('findings grouped by message template', () => {
  let t: TestHost;
  let traceId: string;

  before(async () => {
    t = startTestHost();
    const summary = await t.openSettled(fixture);
    assert.equal(summary.state, 'ready', summary.error ?? '');
    traceId = summary.traceId;
  });
  after(async () => {
    await t.close();
  });

  const findings = async (request: Record<string, unknown>): Promise<Findings> => (await t.host.call('findings', { traceId, ...request })) as Findings;

  it('folds the six identical invalid-argument errors into one group, with its first occurrence', async () => {
    const page = await findings({ kind: 'invalid_arguments', severity: 'error', templates: true });
    assert.equal(page.total, 1);
    assert.deepEqual(page.rows, []);
    const [group] = page.templates ?? [];
    assert.ok(group);
    assert.equal(group.count, 6);
    assert.match(group.template, /^call get_order has invalid arguments: arguments are not valid JSON/);
    assert.equal(group.first.step, 1, 'the first occurrence in file order');
    assert.equal(group.key, findingTemplateKey(findingTemplate(group.first.message)));
  });

  it('lists a group\u2019s occurrences a page at a time, in file order', async () => {
    const [group] = (await findings({ kind: 'invalid_arguments', severity: 'error', templates: true })).templates ?? [];
    assert.ok(group);
    const first = await findings({ kind: 'invalid_arguments', severity: 'error', templateKey: group.key, limit: 4 });
    const rest = await findings({ kind: 'invalid_arguments', severity: 'error', templateKey: group.key, offset: 4, limit: 4 });
    assert.equal(first.total, 6);
    assert.deepEqual(
      [...first.rows, ...rest.rows].map((finding) => finding.step),
      [1, 2, 3, 4, 5, 6],
    );
    assert.equal(new Set([...first.rows, ...rest.rows].map((finding) => finding.callId)).size, 6, 'each occurrence is its own finding');
  });

  it('an unknown key has no occurrences; groups of other kinds are separate', async () => {
    const none = await findings({ kind: 'invalid_arguments', severity: 'error', templateKey: 'ffffffff-0' });
    assert.equal(none.total, 0);
    assert.deepEqual(none.rows, []);
    const all = await findings({ templates: true });
    assert.deepEqual(
      (all.templates ?? []).map((group) => [group.first.kind, group.count]),
      [
        ['invalid_arguments', 6],
        ['tool_error', 6],
        ['unterminated_run', 1],
      ],
      'most occurrences first, kinds never merged',
    );
  });
});
