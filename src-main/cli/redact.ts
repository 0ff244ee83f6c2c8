/**
 * `loopscope redact IN OUT`: a copy of a trace with every credential the scanner finds
 * (shared/secrets/secretScanner.ts) replaced by `[REDACTED:<kind>]`, every other byte as it was,
 * so a trace can be shared. The placeholder needs no escaping, so a JSON line stays valid JSON.
 *
 * The file is streamed in windows, not read as lines: a line may be longer than memory should
 * hold (a one-line JSON document), and a line splitter would normalize what it strips. A window's
 * last OVERLAP_BYTES are scanned again with the next one, so a credential cut by the window's end
 * is found whole. OUT is written beside itself under a temporary name and renamed when complete,
 * so a failure never leaves half a copy under its name.
 */
import { closeSync, fstatSync, openSync, readSync, realpathSync, renameSync, rmSync, writeSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { redactionPlaceholder, type SecretKind } from '../../shared/secrets/secretScanner';
import { findLineSecrets, identifyFile, replaceLineSecrets } from '../engine';

const CHUNK_BYTES = 1 << 20;
/** Longer than any credential the scanner matches (a private key's body is at most 16 KiB). */
const OVERLAP_BYTES = 64 * 1024;
/** Bytes kept before a window's first unwritten byte: the scanner looks at what precedes a credential. */
const CONTEXT_BYTES = 8;

/** Why a redaction could not be done, naming the file. */
export class RedactError extends Error {}

export interface RedactSummary {
  bytes: number;
  /** Credentials replaced, by kind. */
  redacted: Map<SecretKind, number>;
}

/** Compressed files cannot be redacted by replacing bytes: what a compressed IN is told instead. */
function compressedFormat(head: Buffer): string | null {
  const startsWith = (magic: readonly number[]): boolean => magic.every((byte, index) => head[index] === byte);
  if (startsWith([0x1f, 0x8b])) return 'gzip-compressed: decompress it first (gunzip -k FILE) and redact the result';
  if (startsWith([0x28, 0xb5, 0x2f, 0xfd])) return 'zstd-compressed: decompress it first (zstd -d FILE) and redact the result';
  if (startsWith([0x50, 0x4b, 0x03, 0x04])) return 'a ZIP archive: extract it first and redact its files';
  return null;
}

function sameFile(input: string, output: string): boolean {
  if (resolve(input) === resolve(output)) return true;
  try {
    return realpathSync(input) === realpathSync(output);
  } catch {
    // OUT does not exist yet: it cannot be IN.
    return false;
  }
}

function reason(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return 'its directory does not exist';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  if (code === 'EISDIR') return 'it is a directory';
  if (code === 'ENOSPC') return 'the disk is full';
  return (error as Error).message;
}

export function redactFile(inputPath: string, outputPath: string): RedactSummary {
  const identity = identifyFile(inputPath);
  if (sameFile(inputPath, outputPath))
    throw new RedactError(`${outputPath}: OUT must be another file than IN (the copy is written beside the trace, never over it)`);
  const input = openSync(identity.path, 'r');
  const temporary = join(dirname(resolve(outputPath)), `.${basename(outputPath)}.${process.pid}.partial`);
  let output: number | null = null;
  try {
    const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
    const first = readSync(input, chunk, 0, CHUNK_BYTES, null);
    const compressed = compressedFormat(chunk.subarray(0, first));
    if (compressed !== null) throw new RedactError(`${inputPath}: cannot redact a compressed file; it is ${compressed}`);
    try {
      output = openSync(temporary, 'w');
    } catch (error) {
      throw new RedactError(`${outputPath}: cannot be written: ${reason(error)}`);
    }
    const redacted = new Map<SecretKind, number>();
    // `pending` holds the bytes not written yet, after `context` bytes that were.
    let pending = Buffer.from(chunk.subarray(0, first));
    let context = 0;
    let ended = first === 0;
    while (pending.length > context) {
      if (!ended) {
        const read = readSync(input, chunk, 0, CHUNK_BYTES, null);
        ended = read === 0;
        pending = Buffer.concat([pending, chunk.subarray(0, read)]);
      }
      // Only what ends before the overlap is certain; at the end of the file everything is.
      const certain = ended ? pending.length : pending.length - OVERLAP_BYTES;
      if (certain <= context) continue;
      const spans = [];
      let cut = certain;
      for (const span of findLineSecrets(pending)) {
        if (span.start < context) continue;
        if (span.end > certain) {
          cut = Math.min(cut, span.start);
          break;
        }
        spans.push(span);
      }
      const written = pending.subarray(context, cut);
      const shifted = spans.map((span) => ({ ...span, start: span.start - context, end: span.end - context }));
      writeAll(
        output,
        replaceLineSecrets(
          written,
          shifted,
          shifted.map((span) => redactionPlaceholder(span.kind)),
        ),
      );
      for (const span of spans) redacted.set(span.kind, (redacted.get(span.kind) ?? 0) + 1);
      const keepFrom = Math.max(0, cut - CONTEXT_BYTES);
      pending = Buffer.from(pending.subarray(keepFrom));
      context = cut - keepFrom;
    }
    if (fstatSync(input).size !== identity.size)
      throw new RedactError(`${inputPath}: the file changed while it was being redacted; run redact again once it is complete`);
    closeSync(output);
    output = null;
    try {
      renameSync(temporary, outputPath);
    } catch (error) {
      throw new RedactError(`${outputPath}: cannot be written: ${reason(error)}`);
    }
    return { bytes: identity.size, redacted };
  } catch (error) {
    if (output !== null) closeSync(output);
    rmSync(temporary, { force: true });
    if (error instanceof RedactError) throw error;
    if ((error as NodeJS.ErrnoException).code !== undefined) throw new RedactError(`${inputPath}: redacting it into ${outputPath} failed: ${reason(error)}`);
    throw error;
  } finally {
    closeSync(input);
  }
}

function writeAll(fd: number, bytes: Buffer): void {
  let at = 0;
  while (at < bytes.length) at += writeSync(fd, bytes, at, bytes.length - at);
}

/** "3 secrets redacted (anthropic_api_key, github_token ×2)": kinds and counts, never values. */
export function describeRedaction(summary: RedactSummary, outputPath: string): string {
  const total = [...summary.redacted.values()].reduce((sum, count) => sum + count, 0);
  if (total === 0) return `no secrets found; ${outputPath} is a byte-identical copy`;
  const kinds = [...summary.redacted.entries()].map(([kind, count]) => (count === 1 ? kind : `${kind} ×${count}`)).join(', ');
  return `${total} secret${total === 1 ? '' : 's'} redacted (${kinds}) in ${outputPath}`;
}
