/**
 * The folder boundaries in eslint.config.js are enforced: each restricted import or global is
 * reported as an error, and ordinary code is not. Among src-main/'s folders, each layer may import
 * only the layers below it; test/ and scripts/ share code only through devkit/.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { ESLint } from 'eslint';
import { repoRoot } from '../devkit/repoPaths';

const eslint = new ESLint({ cwd: repoRoot });

/** Lints `lines` as if they were the file at `relativePath`; returns the rule ids of its errors. */
async function lintErrors(relativePath: string, lines: readonly string[]): Promise<string[]> {
  const [result] = await eslint.lintText(`${lines.join('\n')}\n`, { filePath: path.join(repoRoot, relativePath) });
  assert.ok(result, 'ESLint returned no result');
  return result.messages.filter((message) => message.severity === 2).map((message) => message.ruleId ?? message.message);
}

const importDefault = (source: string): string[] => [`import x from '${source}';`, 'export default x;'];

/** A probe file, the imports that break its folder's boundary, and imports that keep it. */
interface ImportCase {
  file: string;
  forbidden: string[];
  allowed: string[];
}

/** Per case: each forbidden import alone is an error, and the allowed ones together are none. */
function itChecksImports(cases: readonly ImportCase[]): void {
  for (const { file, forbidden, allowed } of cases) {
    const folder = path.dirname(file);
    for (const source of forbidden) {
      it(`${folder}/ rejects an import of ${source}`, async () => {
        assert.deepEqual(await lintErrors(file, importDefault(source)), ['no-restricted-imports']);
      });
    }
    it(`${folder}/ allows ${allowed.join(', ')}`, async () => {
      const code = [
        ...allowed.map((source, index) => `import x${index} from '${source}';`),
        `export default [${allowed.map((_, index) => `x${index}`).join(', ')}];`,
      ];
      assert.deepEqual(await lintErrors(file, code), []);
    });
  }
}

describe('lint boundaries: shared/', () => {
  const file = 'shared/__lint_probe__.ts';
  const forbidden = [
    'node:fs',
    'fs',
    'path',
    'fs/promises',
    'worker_threads',
    'electron',
    'react',
    'react-dom/client',
    'better-sqlite3',
    '../src-main/engine/x',
    '../src-renderer/App',
  ];

  for (const source of forbidden) {
    it(`rejects an import of ${source}`, async () => {
      assert.deepEqual(await lintErrors(file, importDefault(source)), ['no-restricted-imports']);
    });
  }

  it('rejects a re-export from a Node builtin', async () => {
    const code = [`export { readFile } from 'node:fs/promises';`];
    assert.deepEqual(await lintErrors(file, code), ['no-restricted-imports']);
  });

  for (const name of ['window', 'document', 'navigator', 'localStorage', 'sessionStorage', 'process']) {
    it(`rejects the global ${name}`, async () => {
      assert.deepEqual(await lintErrors(file, [`export const x = ${name};`]), ['no-restricted-globals']);
    });
  }

  it('allows zod and relative shared imports', async () => {
    const code = [`import { z } from 'zod';`, `import { severitySchema } from './report';`, 'export const severities = z.array(severitySchema);'];
    assert.deepEqual(await lintErrors(file, code), []);
  });
});

describe('lint boundaries: src-renderer/', () => {
  const file = 'src-renderer/__lint_probe__.tsx';
  const forbidden = ['node:path', 'crypto', 'child_process', 'electron', 'better-sqlite3', '../src-main/electron/main'];

  for (const source of forbidden) {
    it(`rejects an import of ${source}`, async () => {
      assert.deepEqual(await lintErrors(file, importDefault(source)), ['no-restricted-imports']);
    });
  }

  it('rejects ipcRenderer from electron', async () => {
    const code = [`import { ipcRenderer } from 'electron';`, 'export const renderer = ipcRenderer;'];
    assert.deepEqual(await lintErrors(file, code), ['no-restricted-imports']);
  });

  it('allows React, shared code and DOM globals', async () => {
    const code = [
      `import { useState } from 'react';`,
      `import type { LoopscopeBridge } from '../shared/api';`,
      'export const bridge: LoopscopeBridge | undefined = window.loopscope;',
      'export const title = document.title;',
      'export const hook = useState;',
    ];
    assert.deepEqual(await lintErrors(file, code), []);
  });
});

describe('lint boundaries: src-main/', () => {
  it('allows Node builtins, electron and better-sqlite3', async () => {
    const code = [
      `import fs from 'node:fs';`,
      `import { app } from 'electron';`,
      `import Database from 'better-sqlite3';`,
      'export const all = [fs, app, Database];',
    ];
    assert.deepEqual(await lintErrors('src-main/__lint_probe__.ts', code), []);
  });
});

describe('lint boundaries: src-main/ layers', () => {
  /** Per folder (a probe file in it): imports that break the layer order, and imports that keep it. */
  const cases: ImportCase[] = [
    {
      file: 'src-main/engine/engine.ts',
      forbidden: ['../api/apiHost', '../cli/main', '../server/httpServer', '../electron/main', 'electron'],
      allowed: ['./workers/workerProtocol', './report/buildReport', '../../shared/report'],
    },
    {
      file: 'src-main/engine/bytes/x.ts',
      forbidden: ['../adapters/registry', '../store/schema', '../ingest/ingestFile', '../derive/analyzeSource', '../engine', '../../api/apiHost'],
      allowed: ['./contentHash', '../../../shared/analysis/volatileFields'],
    },
    {
      file: 'src-main/engine/adapters/x.ts',
      forbidden: [
        '../store/traceWriter',
        '../ingest/ingestFile',
        '../derive/requestHistory',
        '../pipeline/traceLoader',
        '../workers/ingestWorker',
        '../report/buildReport',
        '../engine',
        '../index',
        '..',
      ],
      allowed: ['./registry', '../bytes/decodeLine', '../../../shared/trace/canonical'],
    },
    {
      file: 'src-main/engine/adapters/kit/x.ts',
      forbidden: ['../../store/traceWriter', '../../ingest/ingestFile'],
      allowed: ['../formatAdapter', '../../bytes/contentHash'],
    },
    {
      file: 'src-main/engine/store/x.ts',
      forbidden: [
        '../adapters/registry',
        '../derive/analyzeSource',
        '../ingest/ingestFile',
        '../pipeline/traceLoader',
        '../workers/storeWorker',
        '../../api/queries',
        '../../cli/main',
      ],
      allowed: ['./schema', '../bytes/zipEntries', '../../../shared/analysis/volatileFields'],
    },
    {
      file: 'src-main/engine/ingest/x.ts',
      forbidden: ['../derive/analyzeSource', '../report/buildReport', '../pipeline/traceLoader', '../workers/ingestWorker'],
      allowed: ['../adapters/registry', '../store/traceWriter', '../bytes/decodeLine'],
    },
    {
      file: 'src-main/engine/derive/x.ts',
      forbidden: ['../ingest/ingestFile', '../report/buildReport', '../pipeline/traceLoader'],
      allowed: ['../store/rawLines', '../adapters/formatAdapter', '../bytes/topLevelScan', '../../../shared/analysis/runAnalysis'],
    },
    {
      file: 'src-main/engine/report/x.ts',
      forbidden: ['../pipeline/traceLoader', '../workers/workerProtocol'],
      allowed: ['../derive/analyzeSource', '../store/traceDatabase'],
    },
    {
      file: 'src-main/engine/pipeline/x.ts',
      forbidden: ['../workers/storeWorker', '../engine', '../../api/apiHost'],
      allowed: ['../ingest/ingestFile', '../store/traceWriter', '../derive/requestAnalysis'],
    },
    {
      file: 'src-main/engine/workers/x.ts',
      forbidden: ['../engine', '../index', '../../server/httpServer'],
      allowed: ['../pipeline/traceLoader', '../ingest/followedFile'],
    },
    {
      file: 'src-main/api/x.ts',
      forbidden: ['../cli/main', '../electron/ipc', '../server/httpServer', '../engine/engine', '../engine/store/runs'],
      allowed: ['../engine', '../../shared/api'],
    },
    { file: 'src-main/api/queries/x.ts', forbidden: ['../../engine/store/readModel'], allowed: ['../../engine'] },
    { file: 'src-main/server/x.ts', forbidden: ['../cli/main', '../electron/ipc', '../engine/index'], allowed: ['../api/apiHost'] },
    { file: 'src-main/electron/x.ts', forbidden: ['../cli/main', '../engine/adapters/registry'], allowed: ['../api/apiError', 'electron'] },
    {
      file: 'src-main/cli/x.ts',
      forbidden: ['../engine/store/traceDatabase'],
      allowed: ['../server/httpServer', '../electron/main', '../api/apiHost', '../engine'],
    },
  ];

  itChecksImports(cases);
});

describe('lint: React hooks in src-renderer/', () => {
  const file = 'src-renderer/__lint_probe__.tsx';

  it('rejects a hook called conditionally', async () => {
    const code = [`import { useState } from 'react';`, 'export function Probe({ on }: { on: boolean }) {', '  if (on) useState(0);', '  return null;', '}'];
    assert.deepEqual(await lintErrors(file, code), ['react-hooks/rules-of-hooks']);
  });

  it('rejects an effect that leaves out what it reads', async () => {
    const code = [
      `import { useEffect } from 'react';`,
      'export function Probe({ title }: { title: string }) {',
      '  useEffect(() => {',
      '    console.log(title);',
      '  }, []);',
      '  return null;',
      '}',
    ];
    assert.deepEqual(await lintErrors(file, code), ['react-hooks/exhaustive-deps']);
  });

  it('allows an effect that lists what it reads', async () => {
    const code = [
      `import { useEffect } from 'react';`,
      'export function Probe({ title }: { title: string }) {',
      '  useEffect(() => {',
      '    console.log(title);',
      '  }, [title]);',
      '  return null;',
      '}',
    ];
    assert.deepEqual(await lintErrors(file, code), []);
  });
});

describe('lint boundaries: test/, scripts/ and devkit/', () => {
  /** Per folder (a probe file in it): imports that would tie tests and scripts together, and the shared ones. */
  const cases: ImportCase[] = [
    {
      file: 'test/x.test.ts',
      forbidden: ['../scripts/generate-synthetic-trace', '../scripts/lib/benchTraces'],
      allowed: ['../devkit/traceGenerators/syntheticTrace', './support/cli', '../src-main/engine'],
    },
    { file: 'test/e2e/x.test.ts', forbidden: ['../../scripts/screenshot-views'], allowed: ['../../devkit/browser', '../support/cli'] },
    { file: 'scripts/x.ts', forbidden: ['../test/support/cli', '../test/fixtures/ui/x'], allowed: ['../devkit/browser', './lib/benchTraces'] },
    { file: 'scripts/lib/x.ts', forbidden: ['../../test/support/engineHarness'], allowed: ['../../devkit/traceGenerators/prng', './measure'] },
    {
      file: 'devkit/x.ts',
      forbidden: ['../test/support/cli', '../scripts/lib/measure'],
      allowed: ['./traceGenerators/prng', '../shared/trace/canonicalEvents'],
    },
    { file: 'devkit/traceGenerators/x.ts', forbidden: ['../../test/support/cli', '../../scripts/bench'], allowed: ['./prng', '../browser'] },
  ];

  itChecksImports(cases);
});
