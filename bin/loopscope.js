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
const compileCache = module.enableCompileCache?.();
// Worker threads do not inherit the call: they read the directory from the environment, as a
// process started with NODE_COMPILE_CACHE set would (each trace file's ingest starts a worker).
if (compileCache?.directory !== undefined && process.env.NODE_COMPILE_CACHE === undefined) process.env.NODE_COMPILE_CACHE = compileCache.directory;
await import(cli);
