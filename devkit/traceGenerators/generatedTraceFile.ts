/**
 * How the benchmark's generators write a trace: lines batched into large writes, to
 * `<out>.partial`, renamed to `<out>` only once complete (an interrupted run leaves nothing that
 * looks like a whole trace), counting bytes, lines and the longest line as it goes.
 */
import { closeSync, mkdirSync, openSync, renameSync, writeSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

const WRITE_BATCH_BYTES = 4 * 1024 * 1024;
const PROGRESS_EVERY_BYTES = 16 * 1024 * 1024;

export interface WrittenCounts {
  bytes: number;
  lines: number;
  maxLineBytes: number;
}

/** Runs `generate`, writing every line it emits; `counts` is kept current (the generator reads `bytes` to know when to stop). */
export function writeGeneratedTrace(
  outPath: string,
  counts: WrittenCounts,
  onProgress: ((bytes: number) => void) | undefined,
  generate: (emit: (line: string) => void) => void,
): void {
  mkdirSync(dirname(resolve(outPath)), { recursive: true });
  const partialPath = `${outPath}.partial`;
  const fd = openSync(partialPath, 'w');
  let batch: string[] = [];
  let batchBytes = 0;
  let nextProgress = PROGRESS_EVERY_BYTES;
  const flush = (): void => {
    if (batch.length === 0) return;
    writeSync(fd, batch.join(''));
    batch = [];
    batchBytes = 0;
  };
  try {
    generate((line) => {
      const bytes = Buffer.byteLength(line) + 1;
      batch.push(line, '\n');
      batchBytes += bytes;
      counts.bytes += bytes;
      counts.lines += 1;
      if (bytes > counts.maxLineBytes) counts.maxLineBytes = bytes;
      if (batchBytes >= WRITE_BATCH_BYTES) flush();
      if (onProgress && counts.bytes >= nextProgress) {
        onProgress(counts.bytes);
        nextProgress += PROGRESS_EVERY_BYTES;
      }
    });
    flush();
  } finally {
    closeSync(fd);
  }
  renameSync(partialPath, outPath);
}
