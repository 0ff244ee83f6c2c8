/** Runs the real engine (worker thread, SQLite file on disk) against a trace, in a fresh cache dir. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openTrace, readReport, type TraceHandle } from '../../src-main/engine/engine';
import type { AnalysisOptions, AnalyzeReport } from '../../shared/report';

export const defaultAnalysis: AnalysisOptions = { window: 6, threshold: 3 };

export function temporaryDir(prefix: string): { path: string; remove: () => void } {
  const path = mkdtempSync(join(tmpdir(), `loopscope-${prefix}-`));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

export async function analyzeFile(
  file: string,
  options: { cacheDir?: string; analysis?: AnalysisOptions; maxLineBytes?: number; storeWorkerMinBytes?: number; format?: string; searchIndex?: boolean } = {},
): Promise<{ report: AnalyzeReport; trace: TraceHandle }> {
  const cache = options.cacheDir === undefined ? temporaryDir('cache') : null;
  try {
    const analysis = options.analysis ?? defaultAnalysis;
    const trace = await openTrace(file, {
      cacheDir: options.cacheDir ?? cache!.path,
      analysis,
      ...(options.maxLineBytes !== undefined ? { maxLineBytes: options.maxLineBytes } : {}),
      ...(options.storeWorkerMinBytes !== undefined ? { storeWorkerMinBytes: options.storeWorkerMinBytes } : {}),
      ...(options.format !== undefined ? { format: options.format } : {}),
      ...(options.searchIndex !== undefined ? { searchIndex: options.searchIndex } : {}),
    });
    return { report: readReport(trace, analysis), trace };
  } finally {
    cache?.remove();
  }
}
