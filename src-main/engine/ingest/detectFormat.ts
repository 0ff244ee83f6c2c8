/**
 * Format detection reads only the start of a file: the complete lines of its first MiB, of which
 * the first 20 that parse as JSON are shown to each adapter (registry.ts) in turn.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { adapterNamed, detectFormat, formatNames } from '../adapters/registry';
import type { FormatAdapter } from '../adapters/formatAdapter';
import { TraceFileError, type FileIdentity } from '../store/traceDatabase';
import { decodeLine, stripUtf8Bom } from './decodeLine';
import { LineSplitter } from './lineSplitter';

const SAMPLE_BYTES = 1 << 20;
const SAMPLE_RECORDS = 20;

export function sampleRecords(identity: FileIdentity): unknown[] {
  const head = Buffer.alloc(Math.min(SAMPLE_BYTES, identity.size));
  const fd = openSync(identity.path, 'r');
  try {
    readSync(fd, head, 0, head.length, 0);
  } finally {
    closeSync(fd);
  }
  const values: unknown[] = [];
  const splitter = new LineSplitter({ maxLineBytes: SAMPLE_BYTES });
  const collect = ({ bytes, offset }: { bytes: Buffer | null; offset: number }): void => {
    if (bytes === null || values.length >= SAMPLE_RECORDS) return;
    const decoded = decodeLine(offset === 0 ? stripUtf8Bom(bytes) : bytes);
    if (decoded.kind === 'json') values.push(decoded.value);
  };
  splitter.push(head, collect);
  // A last line is complete only when the sample is the whole file.
  if (head.length === identity.size) splitter.end(collect);
  return values;
}

export interface ChosenFormat {
  adapter: FormatAdapter;
  reason: string;
}

/** The adapter named by the user, or the one that recognises the file; a clear error otherwise. */
export function chooseFormat(identity: FileIdentity, requested: string | undefined): ChosenFormat {
  if (requested !== undefined) {
    const adapter = adapterNamed(requested);
    if (adapter === undefined) throw new TraceFileError('unknown_format', identity.path, `no format named "${requested}" (known: ${formatNames().join(', ')})`);
    return { adapter, reason: 'chosen with --format' };
  }
  const detection = detectFormat({ path: identity.path, values: sampleRecords(identity) });
  if (detection.adapter === null) throw new TraceFileError('unknown_format', identity.path, detection.reason);
  return { adapter: detection.adapter, reason: detection.reason };
}
