// Real files built byte by byte for the upload tests: PNG (with or without pHYs), JPEG (JFIF, EXIF), PDF.
import { crc32 } from "../src/lib/crc32.ts";


function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

function u32be(value: number): Uint8Array {
  const out = new Uint8Array(4);
  new DataView(out.buffer).setUint32(0, value);
  return out;
}

function ascii(text: string): Uint8Array {
  return new TextEncoder().encode(text);
}

function pngChunk(type: string, data: Uint8Array): Uint8Array {
  const typed = concat(ascii(type), data);
  return concat(u32be(data.length), typed, u32be(crc32(typed)));
}

/** A 1x1 grey PNG; `phys` adds a pHYs chunk (pixels per unit; unit 1 is the metre, 0 an aspect ratio only). */
export function png(phys?: { x: number; y: number; unit: 0 | 1 }): Uint8Array {
  const ihdr = concat(u32be(1), u32be(1), new Uint8Array([8, 0, 0, 0, 0]));
  // zlib stream of one filtered scanline: filter 0, one grey byte.
  const idat = new Uint8Array([0x78, 0x9c, 0x63, 0x60, 0x00, 0x00, 0x00, 0x02, 0x00, 0x01]);
  const chunks: Uint8Array[] = [pngChunk("IHDR", ihdr)];
  if (phys) chunks.push(pngChunk("pHYs", concat(u32be(phys.x), u32be(phys.y), new Uint8Array([phys.unit]))));
  chunks.push(pngChunk("IDAT", idat), pngChunk("IEND", new Uint8Array()));
  return concat(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), ...chunks);
}

/** Pixels per metre for a DPI, as encoders write it (300 DPI is 11,811). */
export function ppm(dpi: number): number {
  return Math.round(dpi / 0.0254);
}

function segment(marker: number, body: Uint8Array): Uint8Array {
  const length = body.length + 2;
  return concat(new Uint8Array([0xff, marker, length >> 8, length & 0xff]), body);
}

/** A tiny JPEG stream: SOI, optional JFIF APP0 and EXIF APP1, a scan, EOI. Units: 0 none, 1 DPI, 2 dots per cm. */
export function jpeg(options: { jfif?: { units: 0 | 1 | 2; x: number; y: number }; exif?: { x: number; y: number; unit?: 1 | 2 | 3 } }): Uint8Array {
  const parts: Uint8Array[] = [new Uint8Array([0xff, 0xd8])];
  if (options.jfif) {
    const { units, x, y } = options.jfif;
    parts.push(segment(0xe0, concat(ascii("JFIF\0"), new Uint8Array([1, 2, units, x >> 8, x & 0xff, y >> 8, y & 0xff, 0, 0]))));
  }
  if (options.exif) parts.push(segment(0xe1, exifBody(options.exif)));
  parts.push(segment(0xda, new Uint8Array([1, 1, 0, 0, 0x3f, 0])), new Uint8Array([0x12, 0x34, 0xff, 0xd9]));
  return concat(...parts);
}

/** "Exif\0\0" + a big-endian TIFF with IFD0 holding XResolution, YResolution and (optionally) ResolutionUnit. */
function exifBody(exif: { x: number; y: number; unit?: 1 | 2 | 3 }): Uint8Array {
  const entries: [number, number, number, number][] = []; // tag, type, count, value-or-offset
  const count = exif.unit === undefined ? 2 : 3;
  const ifdSize = 2 + count * 12 + 4;
  const dataOffset = 8 + ifdSize;
  entries.push([0x011a, 5, 1, dataOffset], [0x011b, 5, 1, dataOffset + 8]);
  const tiff = new Uint8Array(dataOffset + 16);
  const view = new DataView(tiff.buffer);
  tiff.set(ascii("MM"), 0);
  view.setUint16(2, 42);
  view.setUint32(4, 8);
  view.setUint16(8, count);
  entries.forEach(([tag, type, n, value], i) => {
    const at = 10 + i * 12;
    view.setUint16(at, tag);
    view.setUint16(at + 2, type);
    view.setUint32(at + 4, n);
    view.setUint32(at + 8, value);
  });
  if (exif.unit !== undefined) {
    const at = 10 + 2 * 12;
    view.setUint16(at, 0x0128);
    view.setUint16(at + 2, 3);
    view.setUint32(at + 4, 1);
    view.setUint16(at + 8, exif.unit);
  }
  view.setUint32(dataOffset, exif.x);
  view.setUint32(dataOffset + 4, 1);
  view.setUint32(dataOffset + 8, exif.y);
  view.setUint32(dataOffset + 12, 1);
  return concat(ascii("Exif\0\0"), tiff);
}

/** A PDF of exactly `size` bytes when given (padded with a comment), else a small one. */
export function pdf(size?: number): Uint8Array {
  const head = ascii("%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\n%");
  const tail = ascii("\n%%EOF\n");
  const padding = size === undefined ? 0 : size - head.length - tail.length;
  return concat(head, new Uint8Array(padding).fill(0x41), tail);
}
