/**
 * `loopscope serve --otlp` as a user runs it (the built CLI in a child process): it prints where it
 * receives OpenTelemetry traces, a loop's exporter sends spans there, and the run shows up in the
 * library of the page it serves.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import type { ApiResponse } from '../../shared/api';
import { emitSmallAgentTrace } from '../../devkit/otel/smallAgentTrace';
import { repoRoot } from '../../devkit/repoPaths';
import { temporaryDir } from '../support/engineHarness';

const SERVING = /^Loopscope is serving the traces it receives at (http:\/\/127\.0\.0\.1:\d+\/[A-Za-z0-9_-]{43}\/)$/m;
const RECEIVING = /^Receiving OpenTelemetry traces at (http:\/\/127\.0\.0\.1:(\d+))\/v1\/traces \(OTEL_EXPORTER_OTLP_ENDPOINT=\S+\), kept in (.+)$/m;

describe('loopscope serve --otlp', () => {
  const cache = temporaryDir('serve-otlp');
  after(() => cache.remove());

  it('receives a loop’s spans and shows its run in the library', async () => {
    const child = spawn(process.execPath, [join(repoRoot, 'bin', 'loopscope.js'), 'serve', '--otlp', '0', '--cache-dir', cache.path], { cwd: repoRoot });
    try {
      let stdout = '';
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const [page, endpoint, file] = await new Promise<[string, string, string]>((resolve, reject) => {
        child.stdout.on('data', (chunk: Buffer) => {
          stdout += chunk.toString();
          const serving = SERVING.exec(stdout);
          const receiving = RECEIVING.exec(stdout);
          if (serving && receiving) resolve([serving[1]!, receiving[1]!, receiving[3]!]);
        });
        child.on('exit', (code) => reject(new Error(`serve exited with ${code}:\n${stdout}${stderr}`)));
      });
      assert.equal(file, join(cache.path, 'otlp', 'received.jsonl'));

      await emitSmallAgentTrace(new OTLPTraceExporter({ url: `${endpoint}/v1/traces` }), 'received-agent');
      assert.ok(existsSync(file), 'the received spans are kept in the cache');
      const deadline = Date.now() + 60_000;
      let runs: ApiResponse<'libraryRuns'> | undefined;
      while (Date.now() < deadline) {
        const response = await fetch(new URL('api/libraryRuns', page), { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
        if (response.status === 200) {
          runs = (await response.json()) as ApiResponse<'libraryRuns'>;
          if (runs.total > 0) break;
        }
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      assert.ok(runs !== undefined && runs.total === 1, `the received run is in the library: ${JSON.stringify(runs)}`);
      assert.equal(runs.rows[0]!.format, 'otel-otlp');
      assert.equal(runs.rows[0]!.toolCalls, 1);
      child.kill('SIGINT');
      const [code] = (await once(child, 'exit')) as [number | null];
      assert.equal(code, 0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });
});
