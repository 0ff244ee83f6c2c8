#!/usr/bin/env node
// The built CLI (npm install builds it; `npm run build` rebuilds it). Needs Node >= 22, checked
// before the CLI (and its native SQLite module, which crashes older Node.js) is loaded.
import { existsSync } from 'node:fs';
import module from 'node:module';
import { fileURLToPath } from 'node:url';
import { nodeVersionProblem } from './nodeVersion.js';

const versionProblem = nodeVersionProblem(process.versions.node);
if (versionProblem !== undefined) {
  process.stderr.write(versionProblem);
  process.exit(2);
}
const cli = fileURLToPath(new URL('../out/main/cli.js', import.meta.url));
if (!existsSync(cli)) {
  process.stderr.write('loopscope: the CLI is not built yet; run `npm run build` first\n');
  process.exit(2);
}
// Cache compiled code between runs: start-up (main thread and workers) is a visible share of a
// short analyze.
module.enableCompileCache?.();
await import(cli);
