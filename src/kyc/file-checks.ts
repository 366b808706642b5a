// What an uploaded file really is, judged by its whole structure: a complete PDF, JPEG or PNG under an agreeing name,
// and for an image, no stated resolution under 300 DPI.

import type { DocumentMimeType } from "../db/schema.ts";
import { Problem } from "../lib/problem.ts";

type SniffedType = {
  mimeType: DocumentMimeType;
  extensions: readonly string[];
};

/** Horizontal and vertical resolution in dots per inch, rounded to whole numbers; an axis the file leaves out is absent. */
interface Resolution {
  x?: number;
  y?: number;
}

/**
 * A format: its signature, and the walk over its whole structure, which throws the 415 when the structure is
 * truncated or malformed and hands each resolution the file states to `stated`. The walks keep no list and copy
 * nothing, so a file of a million tiny chunks costs time linear in its size and no memory.
 */
interface Format {
  type: SniffedType;
  signature: readonly number[];
  walk(bytes: Uint8Array, stated: (resolution: Resolution) => void): void;
}

export const MIN_DPI = 300;
const INCHES_PER_METRE = 0.0254;
const CM_PER_INCH = 2.54;

const FORMATS: readonly Format[] = [
  { type: { mimeType: "application/pdf", extensions: [".pdf"] }, signature: ascii("%PDF-"), walk: walkPdf },
  { type: { mimeType: "image/jpeg", extensions: [".jpg", ".jpeg"] }, signature: [0xff, 0xd8, 0xff], walk: walkJpeg },
  {
    type: { mimeType: "image/png", extensions: [".png"] },
    signature: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a],
    walk: walkPng,
  },
];

/**
 * Judges the whole file and answers its type, or throws the problem for the first rule it breaks, in this order:
 * 415 for content that is no PDF, JPEG or PNG, for a name whose extension disagrees, and for a truncated or malformed
 * structure; then 400 for an image that states under 300 DPI on any axis it states.
 */
export function checkFile(bytes: Uint8Array, filename: string): SniffedType {
  const format = FORMATS.find((f) => startsWithAt(bytes, f.signature, 0));
  if (!format) throw unsupported("The file is not a PDF, JPEG or PNG (judged by its content)");
  const { type } = format;
  const extension = extensionOf(filename);
  if (!type.extensions.includes(extension)) {
    throw unsupported(
      `The file's content is ${type.mimeType} but its name ends in "${extension || "(no extension)"}"; expected ${type.extensions.join(" or ")}`,
    );
  }
  // The first resolution under the minimum is kept, not thrown: a broken structure found later still answers 415.
  let low: Resolution | undefined;
  format.walk(bytes, (resolution) => {
    if (!low && isUnderMinimum(resolution)) low = resolution;
  });
  if (low) {
    throw new Problem(
      "resolution_too_low",
      `The image states ${describe(low)}; scanned documents need at least ${MIN_DPI} DPI on every axis they state`,
    );
  }
  return type;
}

function isUnderMinimum({ x, y }: Resolution): boolean {
  return (x !== undefined && x < MIN_DPI) || (y !== undefined && y < MIN_DPI);
}

function describe({ x, y }: Resolution): string {
  if (y === undefined) return `${x} DPI horizontally and no vertical resolution`;
  if (x === undefined) return `${y} DPI vertically and no horizontal resolution`;
  return `${x}x${y} DPI`;
}

function unsupported(detail: string): Problem {
  return new Problem("unsupported_media_type", detail);
}

function ascii(text: string): number[] {
  return Array.from(text, (c) => c.charCodeAt(0));
}

function startsWithAt(bytes: Uint8Array, prefix: readonly number[], at: number): boolean {
  return at + prefix.length <= bytes.length && prefix.every((b, i) => bytes[at + i] === b);
}

/** The file name's extension, lowercased with its dot ("" when it has none). */
function extensionOf(filename: string): string {
  const dot = filename.lastIndexOf(".");
  return dot <= 0 ? "" : filename.slice(dot).toLowerCase();
}

/** Unsigned 16 and 32-bit reads in either byte order, without a view made per read or per segment. */
function u16(bytes: Uint8Array, at: number, little = false): number {
  return little ? bytes[at]! | (bytes[at + 1]! << 8) : (bytes[at]! << 8) | bytes[at + 1]!;
}

function u32(bytes: Uint8Array, at: number, little = false): number {
  return little ? u16(bytes, at + 2, true) * 0x10000 + u16(bytes, at, true) : u16(bytes, at) * 0x10000 + u16(bytes, at + 2);
}

const PDF_EOF = ascii("%%EOF");
/** Readers look for %%EOF only this near the end, leaving room for trailing whitespace (PDF 1.7, annex H). */
const PDF_EOF_WINDOW = 1024;

/** A PDF states no resolution; it is whole when its %%EOF marker lies within the last 1024 bytes. */
function walkPdf(bytes: Uint8Array): void {
  const from = Math.max(0, bytes.length - PDF_EOF_WINDOW);
  for (let at = bytes.length - PDF_EOF.length; at >= from; at--) {
    if (startsWithAt(bytes, PDF_EOF, at)) return;
  }
  throw unsupported(`The PDF has no %%EOF marker in its last ${PDF_EOF_WINDOW} bytes`);
}

// Chunk types as the big-endian numbers their four ASCII letters make, compared without building strings.
const IDAT = 0x49444154;
const IEND = 0x49454e44;
const PHYS = 0x70485973;

/**
 * Walks every chunk from the signature to IEND, which must end the file; each must fit in it. pHYs (pixels per metre
 * when its unit is 1, an aspect ratio only when 0) counts only before the first IDAT, where the PNG spec puts it.
 */
function walkPng(bytes: Uint8Array, stated: (resolution: Resolution) => void): void {
  let seenImageData = false;
  let offset = 8;
  for (;;) {
    // Length (4), type (4), data, CRC (4).
    if (offset + 12 > bytes.length) throw unsupported("The PNG ends before its IEND chunk");
    const length = u32(bytes, offset);
    const type = u32(bytes, offset + 4);
    const end = offset + 12 + length;
    if (end > bytes.length) throw unsupported(`The PNG's chunk at byte ${offset} runs past the end of the file`);
    if (type === IEND) {
      const extra = bytes.length - end;
      if (extra > 0) throw unsupported(`The PNG continues for ${extra} byte${extra === 1 ? "" : "s"} after its IEND chunk`);
      return;
    }
    if (type === IDAT) seenImageData = true;
    else if (type === PHYS && !seenImageData && length >= 9 && bytes[offset + 16] === 1) {
      stated({
        x: Math.round(u32(bytes, offset + 8) * INCHES_PER_METRE),
        y: Math.round(u32(bytes, offset + 12) * INCHES_PER_METRE),
      });
    }
    offset = end;
  }
}

const SOS = 0xda;
const APP0 = 0xe0;
const APP1 = 0xe1;

/**
 * Walks every segment from SOI to the start of scan, reading each JFIF (APP0) and EXIF (APP1) on the way; each
 * segment must fit in the file, and the file must end with EOI (FF D9) after the scan header. Zero bytes after EOI
 * are allowed: hardware encoders pad their output with them (camera modules padding to a 4-byte boundary or more).
 */
function walkJpeg(bytes: Uint8Array, stated: (resolution: Resolution) => void): void {
  let offset = 2;
  for (;;) {
    if (offset + 2 > bytes.length) throw unsupported("The JPEG ends before its start of scan");
    if (bytes[offset] !== 0xff) throw unsupported(`The JPEG has no marker at byte ${offset}, where a segment should start`);
    const marker = bytes[offset + 1]!;
    // Fill bytes (FF) may precede a marker; TEM and RSTn stand alone, without a length.
    if (marker === 0xff) {
      offset += 1;
      continue;
    }
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      offset += 2;
      continue;
    }
    // SOI again, EOI, or a stuffed zero: none belongs before the scan.
    if (marker === 0xd8 || marker === 0xd9 || marker === 0x00) {
      throw unsupported(`The JPEG has marker FF ${hex(marker)} at byte ${offset}, before its start of scan`);
    }
    if (offset + 4 > bytes.length) throw unsupported(`The JPEG's segment at byte ${offset} runs past the end of the file`);
    const length = u16(bytes, offset + 2);
    if (length < 2) throw unsupported(`The JPEG's segment at byte ${offset} declares a length under 2`);
    const end = offset + 2 + length;
    if (end > bytes.length) throw unsupported(`The JPEG's segment at byte ${offset} runs past the end of the file`);
    if (marker === SOS) {
      let last = bytes.length;
      while (last > end && bytes[last - 1] === 0) last--;
      if (last - 2 < end || bytes[last - 2] !== 0xff || bytes[last - 1] !== 0xd9) {
        throw unsupported("The JPEG does not end with its end-of-image marker (FF D9)");
      }
      return;
    }
    const read = marker === APP0 ? jfifResolution : marker === APP1 ? exifResolution : undefined;
    const resolution = read?.(bytes, offset + 4, end);
    if (resolution) stated(resolution);
    offset = end;
  }
}

function hex(byte: number): string {
  return byte.toString(16).toUpperCase().padStart(2, "0");
}

const JFIF = ascii("JFIF\0");

/** The JFIF density in the segment body at start..end: units 1 dots per inch, 2 dots per centimetre, 0 none. */
function jfifResolution(bytes: Uint8Array, start: number, end: number): Resolution | undefined {
  // "JFIF\0", version (2), units (1), Xdensity (2), Ydensity (2)
  if (end - start < 12 || !startsWithAt(bytes, JFIF, start)) return undefined;
  const units = bytes[start + 7];
  const x = u16(bytes, start + 8);
  const y = u16(bytes, start + 10);
  if (units === 1) return { x, y };
  if (units === 2) return { x: Math.round(x * CM_PER_INCH), y: Math.round(y * CM_PER_INCH) };
  return undefined;
}

const EXIF = ascii("Exif\0\0");
const EXIF_X_RESOLUTION = 0x011a;
const EXIF_Y_RESOLUTION = 0x011b;
const EXIF_RESOLUTION_UNIT = 0x0128;

/**
 * EXIF XResolution and YResolution from IFD0 in the segment body at start..end, each axis on its own (one present is
 * judged alone); ResolutionUnit 1 states nothing, 3 is per centimetre, anything else the inch (EXIF's default).
 */
function exifResolution(bytes: Uint8Array, start: number, end: number): Resolution | undefined {
  // "Exif\0\0", then a TIFF header: byte order, 42, offset of IFD0. Offsets inside the TIFF count from its start.
  if (end - start < 14 || !startsWithAt(bytes, EXIF, start)) return undefined;
  const tiff = start + EXIF.length;
  const size = end - tiff;
  const little = bytes[tiff] === 0x49 && bytes[tiff + 1] === 0x49;
  if (!little && !(bytes[tiff] === 0x4d && bytes[tiff + 1] === 0x4d)) return undefined;
  const read16 = (at: number) => u16(bytes, tiff + at, little);
  const read32 = (at: number) => u32(bytes, tiff + at, little);
  if (read16(2) !== 42) return undefined;
  const ifd = read32(4);
  if (ifd + 2 > size) return undefined;
  let x: number | undefined;
  let y: number | undefined;
  let unit = 2;
  // The entry count is the file's word; entries past the segment's end are not read.
  const entries = Math.min(read16(ifd), Math.floor((size - ifd - 2) / 12));
  for (let i = 0; i < entries; i++) {
    const entry = ifd + 2 + i * 12;
    const tag = read16(entry);
    if (tag === EXIF_RESOLUTION_UNIT) unit = read16(entry + 8);
    if (tag === EXIF_X_RESOLUTION || tag === EXIF_Y_RESOLUTION) {
      const at = read32(entry + 8);
      if (at + 8 > size) continue;
      const denominator = read32(at + 4);
      if (denominator === 0) continue;
      const value = read32(at) / denominator;
      if (tag === EXIF_X_RESOLUTION) x = value;
      else y = value;
    }
  }
  if ((x === undefined && y === undefined) || unit === 1) return undefined;
  const perInch = unit === 3 ? CM_PER_INCH : 1;
  const dpi = (value: number | undefined) => (value === undefined ? undefined : Math.round(value * perInch));
  return { x: dpi(x), y: dpi(y) };
}
