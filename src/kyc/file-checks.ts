// What an uploaded file really is, judged by its bytes: PDF, JPEG or PNG, and the resolution an image states.

import type { DocumentMimeType } from "../db/schema.ts";

export type SniffedType = {
  mimeType: DocumentMimeType;
  extensions: readonly string[];
};

const PDF: SniffedType = { mimeType: "application/pdf", extensions: [".pdf"] };
const JPEG: SniffedType = {
  mimeType: "image/jpeg",
  extensions: [".jpg", ".jpeg"],
};
const PNG: SniffedType = { mimeType: "image/png", extensions: [".png"] };

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

function startsWith(bytes: Uint8Array, prefix: readonly number[]): boolean {
  return bytes.length >= prefix.length && prefix.every((b, i) => bytes[i] === b);
}

/** The type the content has, whatever the name or declared type say; undefined for anything else. */
export function sniffType(bytes: Uint8Array): SniffedType | undefined {
  if (startsWith(bytes, [0x25, 0x50, 0x44, 0x46, 0x2d])) return PDF; // %PDF-
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return JPEG;
  if (startsWith(bytes, PNG_SIGNATURE)) return PNG;
  return undefined;
}

/** The file name's extension, lowercased with its dot ("" when it has none). */
export function extensionOf(filename: string): string {
  const dot = filename.lastIndexOf(".");
  return dot <= 0 ? "" : filename.slice(dot).toLowerCase();
}

/** Horizontal and vertical resolution in dots per inch, rounded to whole numbers. */
export interface Resolution {
  x: number;
  y: number;
}

const INCHES_PER_METRE = 0.0254;
const CM_PER_INCH = 2.54;

/**
 * Every resolution the image states: PNG pHYs in pixels per metre; JPEG JFIF density in dots per inch or per
 * centimetre, and EXIF XResolution/YResolution. Unit-less densities (PNG unit 0, JFIF units 0, EXIF unit 1) state
 * nothing. An empty list means the image states no resolution.
 */
export function statedResolutions(type: SniffedType, bytes: Uint8Array): Resolution[] {
  if (type === PNG) return pngResolutions(bytes);
  if (type === JPEG) return jpegResolutions(bytes);
  return [];
}

function view(bytes: Uint8Array): DataView {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

function pngResolutions(bytes: Uint8Array): Resolution[] {
  const data = view(bytes);
  let offset = PNG_SIGNATURE.length;
  while (offset + 8 <= bytes.length) {
    const length = data.getUint32(offset);
    const type = String.fromCharCode(...bytes.subarray(offset + 4, offset + 8));
    const body = offset + 8;
    if (type === "pHYs" && length >= 9 && body + 9 <= bytes.length) {
      if (bytes[body + 8] !== 1) return []; // unit 0: aspect ratio only
      return [
        {
          x: Math.round(data.getUint32(body) * INCHES_PER_METRE),
          y: Math.round(data.getUint32(body + 4) * INCHES_PER_METRE),
        },
      ];
    }
    // pHYs must precede the image data; past it, the image states no resolution.
    if (type === "IDAT" || type === "IEND") return [];
    offset = body + length + 4;
  }
  return [];
}

function jpegResolutions(bytes: Uint8Array): Resolution[] {
  const data = view(bytes);
  const found: Resolution[] = [];
  let offset = 2;
  while (offset + 4 <= bytes.length && bytes[offset] === 0xff) {
    const marker = bytes[offset + 1]!;
    if (marker === 0xd8 || (marker >= 0xd0 && marker <= 0xd7) || marker === 0x01 || marker === 0xff) {
      offset += marker === 0xff ? 1 : 2;
      continue;
    }
    // Start of scan or end of image: the metadata segments are behind us.
    if (marker === 0xda || marker === 0xd9) break;
    const length = data.getUint16(offset + 2);
    const segment = bytes.subarray(offset + 4, Math.min(bytes.length, offset + 2 + length));
    if (marker === 0xe0) {
      const jfif = jfifResolution(segment);
      if (jfif) found.push(jfif);
    } else if (marker === 0xe1) {
      const exif = exifResolution(segment);
      if (exif) found.push(exif);
    }
    offset += 2 + length;
  }
  return found;
}

function jfifResolution(segment: Uint8Array): Resolution | undefined {
  // "JFIF\0", version (2), units (1), Xdensity (2), Ydensity (2)
  if (segment.length < 12 || !startsWith(segment, [0x4a, 0x46, 0x49, 0x46, 0x00])) return undefined;
  const data = view(segment);
  const units = segment[7];
  const x = data.getUint16(8);
  const y = data.getUint16(10);
  if (units === 1) return { x, y };
  if (units === 2) return { x: Math.round(x * CM_PER_INCH), y: Math.round(y * CM_PER_INCH) };
  return undefined;
}

const EXIF_X_RESOLUTION = 0x011a;
const EXIF_Y_RESOLUTION = 0x011b;
const EXIF_RESOLUTION_UNIT = 0x0128;

function exifResolution(segment: Uint8Array): Resolution | undefined {
  // "Exif\0\0", then a TIFF header: byte order, 42, offset of IFD0.
  if (segment.length < 14 || !startsWith(segment, [0x45, 0x78, 0x69, 0x66, 0x00, 0x00])) return undefined;
  const tiff = segment.subarray(6);
  const data = view(tiff);
  const little = tiff[0] === 0x49 && tiff[1] === 0x49;
  if (!little && !(tiff[0] === 0x4d && tiff[1] === 0x4d)) return undefined;
  const u16 = (at: number) => data.getUint16(at, little);
  const u32 = (at: number) => data.getUint32(at, little);
  if (u16(2) !== 42) return undefined;
  const ifd = u32(4);
  if (ifd + 2 > tiff.length) return undefined;
  let x: number | undefined;
  let y: number | undefined;
  let unit = 2; // EXIF's default unit is the inch
  const entries = u16(ifd);
  for (let i = 0; i < entries; i++) {
    const entry = ifd + 2 + i * 12;
    if (entry + 12 > tiff.length) break;
    const tag = u16(entry);
    if (tag === EXIF_RESOLUTION_UNIT) unit = u16(entry + 8);
    if (tag === EXIF_X_RESOLUTION || tag === EXIF_Y_RESOLUTION) {
      const at = u32(entry + 8);
      if (at + 8 > tiff.length) continue;
      const denominator = u32(at + 4);
      if (denominator === 0) continue;
      const value = u32(at) / denominator;
      if (tag === EXIF_X_RESOLUTION) x = value;
      else y = value;
    }
  }
  if (x === undefined || y === undefined || unit === 1) return undefined;
  const perInch = unit === 3 ? CM_PER_INCH : 1;
  return { x: Math.round(x * perInch), y: Math.round(y * perInch) };
}
