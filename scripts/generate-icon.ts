/**
 * `tsx scripts/generate-icon.ts`: draws the app icon, build/icon.png (1024×1024), from which
 * electron-builder makes the macOS .icns, the Windows .ico and the Linux sizes. The mark is a loop
 * (a ring) with a dot on it, the step being looked at, on a dark rounded square. Pure Node (a
 * PNG writer on zlib), so the icon is rebuilt from this file alone and the PNG is committed.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { deflateSync } from 'node:zlib';

type Rgba = readonly [number, number, number, number];

const size = 1024;
const iconPath = join(dirname(fileURLToPath(import.meta.url)), '..', 'build', 'icon.png');

const background: Rgba = [24, 28, 38, 255];
const ring: Rgba = [94, 176, 255, 255];
const dot: Rgba = [255, 183, 77, 255];

/** macOS icons leave a margin around the square; the same drawing serves every platform. */
const squareInset = size * 0.1;
const squareRadius = size * 0.18;
const center = size / 2;
const ringRadius = size * 0.24;
const ringHalfWidth = size * 0.045;
/** The dot sits on the ring at the upper right, where a clock hand would point to "2". */
const dotAngle = -Math.PI / 5;
const dotRadius = size * 0.085;

/** Signed distance to a rounded square (negative inside). */
function roundedSquareDistance(x: number, y: number): number {
  const half = size / 2 - squareInset;
  const qx = Math.abs(x - center) - (half - squareRadius);
  const qy = Math.abs(y - center) - (half - squareRadius);
  const outside = Math.hypot(Math.max(qx, 0), Math.max(qy, 0));
  return outside + Math.min(Math.max(qx, qy), 0) - squareRadius;
}

function ringDistance(x: number, y: number): number {
  return Math.abs(Math.hypot(x - center, y - center) - ringRadius) - ringHalfWidth;
}

function dotDistance(x: number, y: number): number {
  const dotX = center + ringRadius * Math.cos(dotAngle);
  const dotY = center + ringRadius * Math.sin(dotAngle);
  return Math.hypot(x - dotX, y - dotY) - dotRadius;
}

/** How much of a pixel a shape covers, from its signed distance at the pixel's centre: a one-pixel soft edge. */
function coverage(distance: number): number {
  return Math.min(1, Math.max(0, 0.5 - distance));
}

/** `top` over `bottom` with `top` covering `amount` of the pixel. */
function over(bottom: Rgba, top: Rgba, amount: number): Rgba {
  const alpha = (top[3] / 255) * amount;
  const outAlpha = alpha + (bottom[3] / 255) * (1 - alpha);
  if (outAlpha === 0) return [0, 0, 0, 0];
  const channel = (index: 0 | 1 | 2) => Math.round((top[index] * alpha + bottom[index] * (bottom[3] / 255) * (1 - alpha)) / outAlpha);
  return [channel(0), channel(1), channel(2), Math.round(outAlpha * 255)];
}

function pixel(x: number, y: number): Rgba {
  let color: Rgba = [0, 0, 0, 0];
  color = over(color, background, coverage(roundedSquareDistance(x, y)));
  color = over(color, ring, coverage(ringDistance(x, y)));
  // A dark halo separates the dot from the ring it sits on.
  color = over(color, background, coverage(dotDistance(x, y) - ringHalfWidth * 0.6));
  return over(color, dot, coverage(dotDistance(x, y)));
}

const crcTable = Array.from({ length: 256 }, (_, index) => {
  let value = index;
  for (let bit = 0; bit < 8; bit += 1) value = value & 1 ? 0xedb88320 ^ (value >>> 1) : value >>> 1;
  return value >>> 0;
});

function crc32(bytes: Buffer): number {
  let crc = 0xffffffff;
  for (const byte of bytes) crc = (crcTable[(crc ^ byte) & 0xff] ?? 0) ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const typeAndData = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(typeAndData));
  return Buffer.concat([length, typeAndData, crc]);
}

/** An 8-bit RGBA PNG of the drawing, every scanline unfiltered. */
function encodePng(): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header.writeUInt8(8, 8); // bit depth
  header.writeUInt8(6, 9); // colour type: RGBA
  const rowBytes = 1 + size * 4;
  const raw = Buffer.alloc(rowBytes * size);
  for (let y = 0; y < size; y += 1) {
    for (let x = 0; x < size; x += 1) {
      raw.set(pixel(x + 0.5, y + 0.5), y * rowBytes + 1 + x * 4);
    }
  }
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return Buffer.concat([signature, chunk('IHDR', header), chunk('IDAT', deflateSync(raw, { level: 9 })), chunk('IEND', Buffer.alloc(0))]);
}

mkdirSync(dirname(iconPath), { recursive: true });
writeFileSync(iconPath, encodePng());
console.log(`wrote ${iconPath} (${size}×${size})`);
