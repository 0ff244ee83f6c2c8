/**
 * Format detection reads only the start of a file: its first MiB, framed both as lines and as
 * JSON values back to back; the first 20 records of each that parse are shown to each adapter
 * (registry.ts) in turn, with the first 64 KiB as text. A ZIP archive is sampled from its
 * entry names and header entry instead (sampleZip).
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { adapterNamed, detectFormat, formatNames } from '../adapters/registry';
import type { DetectionSample, FormatAdapter } from '../adapters/formatAdapter';
import { JsonStreamSplitter } from './jsonStreamSplitter';
import { TraceFileError, type FileIdentity } from '../store/traceDatabase';
import { decodeLine, stripUtf8Bom } from '../bytes/decodeLine';
import { LineSplitter } from './lineSplitter';
import { isJsonEntry, readZipDirectory, readZipEntry, startsWithZipSignature, ZipFormatError } from '../bytes/zipEntries';

const SAMPLE_BYTES = 1 << 20;
const SAMPLE_RECORDS = 20;

const HEAD_TEXT_BYTES = 64 * 1024;

/** The first MiB, without a UTF-8 BOM, and whether that is the whole file. */
function readHead(identity: FileIdentity): { head: Buffer; whole: boolean } {
  const head = Buffer.alloc(Math.min(SAMPLE_BYTES, identity.size));
  const fd = openSync(identity.path, 'r');
  try {
    readSync(fd, head, 0, head.length, 0);
  } finally {
    closeSync(fd);
  }
  return { head: stripUtf8Bom(head), whole: head.length === identity.size };
}

/** The complete records of `head` that parse as JSON, framed by `splitter`. */
function parsedRecords(head: Buffer, complete: boolean, splitter: LineSplitter | JsonStreamSplitter): unknown[] {
  const values: unknown[] = [];
  const collect = ({ bytes }: { bytes: Buffer | null }): void => {
    if (bytes === null || values.length >= SAMPLE_RECORDS) return;
    const decoded = decodeLine(bytes);
    if (decoded.kind === 'json') values.push(decoded.value);
  };
  splitter.push(head, collect);
  // A last record is complete only when the sample is the whole file.
  if (complete) splitter.end(collect);
  return values;
}

/** Header entries sampled from a ZIP container, in order of preference. */
const ZIP_HEADER_ENTRIES = ['header.json', '_journal/start.json'];
const ZIP_HEADER_MAX_BYTES = 1 << 20;

/**
 * A ZIP archive of JSON entries (Inspect AI `.eval`): `head` is `zip:` followed by the entry names,
 * one a line, and `framedValues` holds its header entry (`header.json`, else `_journal/start.json`)
 * when it is under 1 MiB. A ZIP that cannot be read yields only its `zip:` head.
 */
function sampleZip(identity: FileIdentity): DetectionSample {
  const sample: DetectionSample = { path: identity.path, values: [], framedValues: [], head: 'zip:' };
  const fd = openSync(identity.path, 'r');
  try {
    const entries = readZipDirectory(fd, identity.size);
    sample.head = `zip:${entries.map((entry) => entry.name).join('\n')}`.slice(0, HEAD_TEXT_BYTES);
    for (const name of ZIP_HEADER_ENTRIES) {
      const entry = entries.find((candidate) => candidate.name === name);
      if (entry === undefined || !isJsonEntry(entry) || entry.uncompressedSize >= ZIP_HEADER_MAX_BYTES) continue;
      const decoded = decodeLine(readZipEntry(fd, entry));
      if (decoded.kind === 'json') sample.framedValues.push(decoded.value);
      break;
    }
  } catch (error) {
    if (!(error instanceof ZipFormatError)) throw error;
  } finally {
    closeSync(fd);
  }
  return sample;
}

export function sampleFile(identity: FileIdentity): DetectionSample {
  const { head, whole } = readHead(identity);
  if (startsWithZipSignature(head)) return sampleZip(identity);
  return {
    path: identity.path,
    values: parsedRecords(head, whole, new LineSplitter({ maxLineBytes: SAMPLE_BYTES })),
    framedValues: parsedRecords(head, whole, new JsonStreamSplitter({ maxRecordBytes: SAMPLE_BYTES })),
    head: head.subarray(0, HEAD_TEXT_BYTES).toString('utf8'),
  };
}

/** Magic numbers of files people open by mistake, or compressed traces. */
const knownBinaries: readonly { name: string; magic: readonly number[] }[] = [
  { name: 'a PNG image', magic: [0x89, 0x50, 0x4e, 0x47] },
  { name: 'a JPEG image', magic: [0xff, 0xd8, 0xff] },
  { name: 'a GIF image', magic: [0x47, 0x49, 0x46, 0x38] },
  { name: 'a PDF document', magic: [0x25, 0x50, 0x44, 0x46] },
  { name: 'SQLite database', magic: [0x53, 0x51, 0x4c, 0x69, 0x74, 0x65, 0x20, 0x66] },
];

/**
 * What a file no adapter recognised is, when that is what the user needs to hear: empty, blank,
 * compressed, UTF-16, binary. Null for a text file of some other JSON or text.
 */
export function describeUnreadable(identity: FileIdentity): string | null {
  if (identity.size === 0) return 'the file is empty: it has no records yet';
  const head = Buffer.alloc(Math.min(4096, identity.size));
  const fd = openSync(identity.path, 'r');
  try {
    readSync(fd, head, 0, head.length, 0);
  } finally {
    closeSync(fd);
  }
  const startsWith = (magic: readonly number[]): boolean => magic.every((byte, i) => head[i] === byte);
  if (startsWith([0x1f, 0x8b])) return 'the file is gzip-compressed: decompress it first (gunzip -k FILE) and open the result';
  if (startsWith([0x28, 0xb5, 0x2f, 0xfd])) return 'the file is zstd-compressed: decompress it first (zstd -d FILE) and open the result';
  if (startsWith([0xff, 0xfe]) || startsWith([0xfe, 0xff]))
    return 'the file is UTF-16 text: Loopscope reads UTF-8 (convert it: iconv -f UTF-16 -t UTF-8 FILE > FILE.utf8.jsonl)';
  const binary = knownBinaries.find((known) => startsWith(known.magic));
  if (binary !== undefined) return `the file is ${binary.name}, not a trace`;
  if (head.includes(0)) return 'the file is binary (it has NUL bytes in its first 4 KiB), not a trace';
  if (identity.size <= head.length && head.toString('utf8').trim() === '') return 'the file has only blank lines: no records yet';
  return null;
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
  const detection = detectFormat(sampleFile(identity));
  if (detection.adapter === null) throw new TraceFileError('unknown_format', identity.path, describeUnreadable(identity) ?? detection.reason);
  return { adapter: detection.adapter, reason: detection.reason };
}
