/**
 * A small ZIP reader for trace containers made of JSON entries (Inspect AI `.eval` logs), built on
 * node:fs and node:zlib only. It reads the central directory (found from the End Of Central
 * Directory record at the end of the file), then each entry on its own: the entry's local header
 * gives where its data starts, and the data is inflated (method 8) or copied (method 0). The
 * archive is never held whole: one entry at a time.
 *
 * Not supported, each refused with a clear error: Zip64 archives (over 4 GiB or 65,535 entries),
 * encrypted entries and compression methods other than stored/deflate.
 */
import { readSync } from 'node:fs';
import { inflateRawSync } from 'node:zlib';

export interface ZipEntry {
  /** 0-based position in the central directory. */
  index: number;
  name: string;
  /** 0 = stored, 8 = deflate. */
  method: number;
  flags: number;
  compressedSize: number;
  uncompressedSize: number;
  /** Offset of the entry's local file header in the archive. */
  localHeaderOffset: number;
}

export class ZipFormatError extends Error {}

const LOCAL_HEADER_SIGNATURE = 0x04034b50;
const CENTRAL_HEADER_SIGNATURE = 0x02014b50;
const END_OF_CENTRAL_DIRECTORY_SIGNATURE = 0x06054b50;
const ZIP64_LOCATOR_SIGNATURE = 0x07064b50;
const END_RECORD_BYTES = 22;
const MAX_COMMENT_BYTES = 0xffff;
const LOCAL_HEADER_BYTES = 30;
const CENTRAL_HEADER_BYTES = 46;

/** Whether a file's first bytes are a ZIP local file header (`PK\x03\x04`). */
export function startsWithZipSignature(head: Buffer): boolean {
  return head.length >= 4 && head.readUInt32LE(0) === LOCAL_HEADER_SIGNATURE;
}

function readAt(fd: number, offset: number, length: number): Buffer {
  const buffer = Buffer.alloc(length);
  let done = 0;
  while (done < length) {
    const read = readSync(fd, buffer, done, length - done, offset + done);
    if (read === 0) throw new ZipFormatError(`the archive ends at byte ${offset + done}, inside a record that should run to byte ${offset + length}`);
    done += read;
  }
  return buffer;
}

/** The central directory's entries, in its order; `size` is the archive's size in bytes. */
export function readZipDirectory(fd: number, size: number): ZipEntry[] {
  const tailLength = Math.min(size, END_RECORD_BYTES + MAX_COMMENT_BYTES);
  const tailStart = size - tailLength;
  const tail = readAt(fd, tailStart, tailLength);
  let end = -1;
  for (let at = tail.length - END_RECORD_BYTES; at >= 0; at -= 1) {
    if (tail.readUInt32LE(at) === END_OF_CENTRAL_DIRECTORY_SIGNATURE) {
      end = at;
      break;
    }
  }
  if (end === -1) throw new ZipFormatError('no End Of Central Directory record: not a ZIP archive, or a truncated one');
  if (end >= 20 && tail.readUInt32LE(end - 20) === ZIP64_LOCATOR_SIGNATURE) throw new ZipFormatError('Zip64 archives are not supported');
  const entryCount = tail.readUInt16LE(end + 10);
  const directorySize = tail.readUInt32LE(end + 12);
  const directoryOffset = tail.readUInt32LE(end + 16);
  if (entryCount === 0xffff || directorySize === 0xffffffff || directoryOffset === 0xffffffff) throw new ZipFormatError('Zip64 archives are not supported');
  if (directoryOffset + directorySize > tailStart + end) throw new ZipFormatError('the central directory lies outside the archive');
  const directory = readAt(fd, directoryOffset, directorySize);
  const entries: ZipEntry[] = [];
  let at = 0;
  for (let index = 0; index < entryCount; index += 1) {
    if (at + CENTRAL_HEADER_BYTES > directory.length || directory.readUInt32LE(at) !== CENTRAL_HEADER_SIGNATURE) {
      throw new ZipFormatError(`central directory entry ${index + 1} is malformed`);
    }
    const nameLength = directory.readUInt16LE(at + 28);
    const extraLength = directory.readUInt16LE(at + 30);
    const commentLength = directory.readUInt16LE(at + 32);
    const entry: ZipEntry = {
      index,
      flags: directory.readUInt16LE(at + 8),
      method: directory.readUInt16LE(at + 10),
      compressedSize: directory.readUInt32LE(at + 20),
      uncompressedSize: directory.readUInt32LE(at + 24),
      localHeaderOffset: directory.readUInt32LE(at + 42),
      name: directory.toString('utf8', at + CENTRAL_HEADER_BYTES, at + CENTRAL_HEADER_BYTES + nameLength),
    };
    if (entry.compressedSize === 0xffffffff || entry.uncompressedSize === 0xffffffff || entry.localHeaderOffset === 0xffffffff) {
      throw new ZipFormatError(`entry ${entry.name} needs Zip64, which is not supported`);
    }
    entries.push(entry);
    at += CENTRAL_HEADER_BYTES + nameLength + extraLength + commentLength;
  }
  return entries;
}

/** The entry's bytes, inflated. */
export function readZipEntry(fd: number, entry: ZipEntry): Buffer {
  if ((entry.flags & 1) !== 0) throw new ZipFormatError(`entry ${entry.name} is encrypted`);
  if (entry.method !== 0 && entry.method !== 8)
    throw new ZipFormatError(`entry ${entry.name} uses compression method ${entry.method} (only stored and deflate are read)`);
  const header = readAt(fd, entry.localHeaderOffset, LOCAL_HEADER_BYTES);
  if (header.readUInt32LE(0) !== LOCAL_HEADER_SIGNATURE)
    throw new ZipFormatError(`entry ${entry.name} has no local file header at byte ${entry.localHeaderOffset}`);
  const dataOffset = entry.localHeaderOffset + LOCAL_HEADER_BYTES + header.readUInt16LE(26) + header.readUInt16LE(28);
  const data = readAt(fd, dataOffset, entry.compressedSize);
  let bytes: Buffer;
  try {
    // Bounded by the size the directory declares, so a lying entry cannot inflate without limit.
    bytes = entry.method === 0 ? data : inflateRawSync(data, { maxOutputLength: Math.max(1, entry.uncompressedSize) });
  } catch (error) {
    throw new ZipFormatError(`entry ${entry.name} does not inflate: ${(error as Error).message}`);
  }
  if (bytes.length !== entry.uncompressedSize) {
    throw new ZipFormatError(`entry ${entry.name} inflates to ${bytes.length} bytes, the directory says ${entry.uncompressedSize}`);
  }
  return bytes;
}

/** Entries whose bytes are JSON records: names ending in `.json`, directories excluded. */
export function isJsonEntry(entry: ZipEntry): boolean {
  return !entry.name.endsWith('/') && entry.name.toLowerCase().endsWith('.json');
}
