/**
 * Where a Claude Code session's sub-agent transcripts are found, with real files in a temporary
 * folder: through a symbolic link to the session (beside the link and beside the file it points
 * to), a sub-agent file given alone (read as its session when that lies beside it, else as a
 * sub-agent run of its own), a sub-agent file given with its session (read once), and a Task
 * result whose transcript is missing (the API says which file and where it looked).
 */
import assert from 'node:assert/strict';
import { copyFileSync, cpSync, mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { ApiResponse } from '../../../shared/api';
import { claudeCodeFormat } from '../../../src-main/engine/adapters/claudeCode/format';
import { companionFiles, companionOwnerFile } from '../../../src-main/engine/ingest/companionFiles';
import { startTestHost } from '../../support/apiHarness';
import { analyzeJson } from '../../support/cli';
import { temporaryDir } from '../../support/engineHarness';
import { repoRoot } from '../../../devkit/repoPaths';

const session = '7c1d2e9a-4b3f-4e8a-9d21-5f6a7b8c9d0e';
const fixture = join(repoRoot, 'test', 'fixtures', 'ui', 'task-subagent');
const agents = ['agent-a51c0de.jsonl', 'agent-b62e1f0.jsonl'];

describe('sub-agent transcripts on disk', () => {
  let dir: ReturnType<typeof temporaryDir>;
  let real: string;
  let cache: ReturnType<typeof temporaryDir>;

  before(() => {
    dir = temporaryDir('subagent-files');
    cache = temporaryDir('subagent-cache');
    real = join(dir.path, 'projects', 'ledger');
    cpSync(fixture, real, { recursive: true });
  });

  after(() => {
    dir.remove();
    cache.remove();
  });

  const realSession = () => join(real, `${session}.jsonl`);

  it('a session opened through a link finds the sub-agents beside the file it points to', () => {
    const links = join(dir.path, 'links');
    mkdirSync(links);
    symlinkSync(realSession(), join(links, `${session}.jsonl`));
    const found = companionFiles(claudeCodeFormat, join(links, `${session}.jsonl`));
    assert.deepEqual(
      found,
      agents.map((name) => join(real, session, 'subagents', name)),
    );
    const { report } = analyzeJson([join(links, `${session}.jsonl`), '--fail-on', 'never'], { cacheDir: cache.path });
    const children = report.runs.filter((run) => run.parent !== undefined);
    assert.deepEqual(
      children.map((run) => [run.run_id, run.parent?.call_id]),
      [
        [`${session}/agent-a51c0de`, 'toolu_01TaskRoundingSearch'],
        [`${session}/agent-b62e1f0`, 'toolu_01TaskTestAudit'],
      ],
    );
  });

  it('and beside the link, the link side first; a file reached both ways is listed once', () => {
    const links = join(dir.path, 'links-with-own');
    mkdirSync(join(links, session, 'subagents'), { recursive: true });
    symlinkSync(realSession(), join(links, `${session}.jsonl`));
    // One sub-agent only beside the link, one linked to the real one (the same file, found twice).
    copyFileSync(join(real, session, 'subagents', agents[1]!), join(links, session, 'subagents', 'agent-c73a2b1.jsonl'));
    symlinkSync(join(real, session, 'subagents', agents[0]!), join(links, session, 'subagents', agents[0]!));
    const found = companionFiles(claudeCodeFormat, join(links, `${session}.jsonl`));
    assert.deepEqual(found, [
      join(links, session, 'subagents', agents[0]!),
      join(real, session, 'subagents', agents[1]!),
      join(links, session, 'subagents', 'agent-c73a2b1.jsonl'),
    ]);
  });

  it('a sub-agent file given alone, its session beside it, is read as that session: the sub-agent is a run linked to its Task call', () => {
    const agentFile = join(real, session, 'subagents', agents[0]!);
    assert.equal(companionOwnerFile(agentFile), realSession());
    const { result, report } = analyzeJson([agentFile, '--fail-on', 'never'], { cacheDir: cache.path });
    assert.match(result.stderr, /is a sub-agent transcript of .*7c1d2e9a-4b3f-4e8a-9d21-5f6a7b8c9d0e\.jsonl: reading the session/);
    assert.deepEqual(
      report.files.map((file) => file.path),
      [realSession(), ...agents.map((name) => join(real, session, 'subagents', name))],
    );
    const run = report.runs.find((candidate) => candidate.run_id === `${session}/agent-a51c0de`);
    assert.deepEqual(run?.parent && { run_id: run.parent.run_id, call_id: run.parent.call_id }, { run_id: session, call_id: 'toolu_01TaskRoundingSearch' });
  });

  it('a session and its sub-agent files named together are read once, as one trace', () => {
    const { report } = analyzeJson(
      [join(real, session, 'subagents', agents[1]!), realSession(), join(real, session, 'subagents', agents[0]!), '--fail-on', 'never'],
      { cacheDir: cache.path },
    );
    assert.deepEqual(
      report.files.map((file) => file.path),
      [realSession(), ...agents.map((name) => join(real, session, 'subagents', name))],
    );
    assert.equal(report.runs.length, 3);
  });

  it('a sub-agent file without its session is a run of its own, named as the sub-agent of that session', async () => {
    const lone = join(dir.path, 'lone', session, 'subagents');
    mkdirSync(lone, { recursive: true });
    copyFileSync(join(real, session, 'subagents', agents[0]!), join(lone, agents[0]!));
    assert.equal(companionOwnerFile(join(lone, agents[0]!)), undefined);
    const { report } = analyzeJson([join(lone, agents[0]!), '--fail-on', 'never'], { cacheDir: cache.path });
    assert.deepEqual(
      report.runs.map((run) => [run.run_id, run.parent]),
      [[`${session}/agent-a51c0de`, undefined]],
    );
    const host = startTestHost();
    try {
      const summary = await host.openSettled(join(lone, agents[0]!));
      const detail = (await host.host.call('run', { traceId: summary.traceId, runPk: 1 })) as ApiResponse<'run'>;
      // What the run header reads as "Sub-agent a51c0de of session …".
      assert.equal(detail.run.parent, null);
      assert.equal(detail.config?.['agent_id'], 'a51c0de');
      assert.equal(detail.config?.['session_id'], session);
    } finally {
      await host.close();
    }
  });

  it('a Task result naming a sub-agent whose transcript is missing: the file and every folder looked in (through a link, both)', async () => {
    const links = join(dir.path, 'links-missing');
    mkdirSync(links);
    symlinkSync(realSession(), join(links, `${session}.jsonl`));
    const host = startTestHost();
    try {
      const summary = await host.openSettled(join(links, `${session}.jsonl`));
      const detail = (await host.host.call('run', { traceId: summary.traceId, runPk: 1 })) as ApiResponse<'run'>;
      const missing = detail.subAgents.filter((subAgent) => subAgent.child === null);
      assert.deepEqual(
        missing.map((subAgent) => [subAgent.callId, subAgent.label, subAgent.missing]),
        [
          [
            'toolu_01TaskChangelog',
            'Draft changelog entry (general-purpose)',
            { file: 'agent-c73a2b1.jsonl', lookedIn: [join(links, session, 'subagents'), join(real, session, 'subagents')] },
          ],
        ],
      );
      assert.deepEqual(
        detail.subAgents.filter((subAgent) => subAgent.child !== null).map((subAgent) => [subAgent.callId, subAgent.child?.steps, subAgent.missing]),
        [
          ['toolu_01TaskRoundingSearch', 3, null],
          ['toolu_01TaskTestAudit', 4, null],
        ],
      );
    } finally {
      await host.close();
    }
  });
});
