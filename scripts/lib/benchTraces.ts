/**
 * The benchmarks' generated traces, cached in bench-data/ and reused while their generator's
 * version, seed and size match (a `.meta.json` beside each trace records what made it):
 * - `synthetic`, `exchange` and `chat` (scripts/bench.ts; `synthetic` is also the UI benchmark's
 *   large trace);
 * - the one-run `long-run` trace of about a million events (scripts/bench.ts's memory step and
 *   scripts/bench-ui.ts).
 */
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { CHAT_GENERATOR_VERSION, generateChatTrace } from '../../devkit/traceGenerators/chatTrace';
import { EXCHANGE_GENERATOR_VERSION, generateExchangeTrace } from '../../devkit/traceGenerators/exchangeTrace';
import { generateLongRunTrace, LONG_RUN_GENERATOR_VERSION, type LongRunStats } from '../../devkit/traceGenerators/longRunTrace';
import { generateSyntheticTrace, GENERATOR_VERSION, type GenerateStats } from '../../devkit/traceGenerators/syntheticTrace';
import { repoRoot } from '../../devkit/repoPaths';

const MB = 1024 * 1024;

/** Repo-relative when inside the repo, absolute otherwise. */
export function displayPath(path: string): string {
  const rel = relative(repoRoot, path);
  return rel.startsWith('..') ? path : rel;
}

export type TraceKind = 'synthetic' | 'exchange' | 'chat';
export const traceKinds: readonly TraceKind[] = ['synthetic', 'exchange', 'chat'];

const generators: Record<
  TraceKind,
  { version: number; generate: (options: { targetBytes: number; seed: number; outPath: string; onProgress?: (bytes: number) => void }) => GenerateStats }
> = {
  synthetic: { version: GENERATOR_VERSION, generate: generateSyntheticTrace },
  exchange: { version: EXCHANGE_GENERATOR_VERSION, generate: generateExchangeTrace },
  chat: { version: CHAT_GENERATOR_VERSION, generate: generateChatTrace },
};

export interface TraceInfo {
  kind: TraceKind;
  path: string;
  reused: boolean;
  stats: GenerateStats;
}

/** `200MB`, `1GB`, or a byte count: how a size is spelled in a trace's file name. */
export function sizeName(targetBytes: number): string {
  if (targetBytes % 1024 ** 3 === 0) return `${targetBytes / 1024 ** 3}GB`;
  if (targetBytes % MB === 0) return `${targetBytes / MB}MB`;
  return `${targetBytes}B`;
}

/** bench-data/<kind>-<size>-seed<seed>-v<version>.jsonl, generated unless a matching one is there. */
export function ensureTrace(kind: TraceKind, targetBytes: number, seed: number, regenerate: boolean, log: (message: string) => void): TraceInfo {
  const generator = generators[kind];
  const name = `${kind}-${sizeName(targetBytes)}-seed${seed}-v${generator.version}`;
  const path = join(repoRoot, 'bench-data', `${name}.jsonl`);
  const metaPath = join(repoRoot, 'bench-data', `${name}.meta.json`);
  if (!regenerate && existsSync(path) && existsSync(metaPath)) {
    try {
      const stats = JSON.parse(readFileSync(metaPath, 'utf8')) as GenerateStats;
      if (stats.generatorVersion === generator.version && stats.seed === seed && stats.targetBytes === targetBytes && statSync(path).size === stats.bytes) {
        log(`reusing ${displayPath(path)}`);
        return { kind, path, reused: true, stats };
      }
    } catch {
      // Unreadable metadata: regenerate.
    }
  }
  log(`generating ${displayPath(path)} (${Math.round(targetBytes / MB)} MB, seed ${seed})…`);
  let logged = 0;
  const stats = generator.generate({
    targetBytes,
    seed,
    outPath: path,
    onProgress: (bytes) => {
      if (bytes - logged < 128 * MB) return;
      logged = bytes;
      log(`  ${Math.round(bytes / MB)} MB`);
    },
  });
  writeFileSync(metaPath, `${JSON.stringify(stats, null, 2)}\n`);
  log(`generated in ${stats.seconds.toFixed(1)} s`);
  return { kind, path, reused: false, stats };
}

export interface LongRunMeta extends LongRunStats {
  generatorVersion: number;
  seed: number;
  /** Events asked for (the generator writes about that many). */
  targetEvents: number;
  seconds: number;
}

export interface LongRunTraceInfo {
  path: string;
  reused: boolean;
  stats: LongRunMeta;
}

/** bench-data/long-run-<events>-seed<seed>-v<version>.jsonl: one run of about `events` events. */
export function ensureLongRunTrace(events: number, seed: number, regenerate: boolean, log: (message: string) => void): LongRunTraceInfo {
  const name = `long-run-${events}-seed${seed}-v${LONG_RUN_GENERATOR_VERSION}`;
  const path = join(repoRoot, 'bench-data', `${name}.jsonl`);
  const metaPath = join(repoRoot, 'bench-data', `${name}.meta.json`);
  if (!regenerate && existsSync(path) && existsSync(metaPath)) {
    try {
      const stats = JSON.parse(readFileSync(metaPath, 'utf8')) as LongRunMeta;
      if (
        stats.generatorVersion === LONG_RUN_GENERATOR_VERSION &&
        stats.seed === seed &&
        stats.targetEvents === events &&
        statSync(path).size === stats.bytes
      ) {
        log(`reusing ${displayPath(path)}`);
        return { path, reused: true, stats };
      }
    } catch {
      // Unreadable metadata: regenerate.
    }
  }
  log(`generating ${displayPath(path)} (${events.toLocaleString('en-US')} events, one run, seed ${seed})…`);
  const started = performance.now();
  const generated = generateLongRunTrace({ events, seed, outPath: path });
  const stats: LongRunMeta = {
    ...generated,
    generatorVersion: LONG_RUN_GENERATOR_VERSION,
    seed,
    targetEvents: events,
    seconds: (performance.now() - started) / 1000,
  };
  writeFileSync(metaPath, `${JSON.stringify(stats, null, 2)}\n`);
  log(`generated in ${stats.seconds.toFixed(1)} s`);
  return { path, reused: false, stats };
}
