// Real files built byte by byte for the upload tests: complete PNG (with or without pHYs), JPEG (JFIF, EXIF) and PDF
// structures, the hostile test's files that must be refused, and the one multipart upload the KYC tests send.
import type { z } from "@hono/zod-openapi";
import { expect } from "vitest";
import { documentSchema } from "../src/kyc/schemas.ts";
import { crc32 } from "../src/lib/crc32.ts";
import type { ProblemCode } from "../src/lib/problem.ts";
import type { TestCustomer } from "./helpers.ts";

export function concat(...parts: Uint8Array[]): Uint8Array {
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

export function ascii(text: string): Uint8Array {
  return new TextEncoder().encode(text);
}

/** The eight bytes every PNG starts with. */
export const PNG_SIGNATURE: readonly number[] = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/** One PNG chunk: length, type, data, CRC over type and data. */
export function pngChunk(type: string, data: Uint8Array): Uint8Array {
  const typed = concat(ascii(type), data);
  return concat(u32be(data.length), typed, u32be(crc32(typed)));
}

/** The data of a pHYs chunk: pixels per unit on x and y, then the unit (1 the metre, 0 an aspect ratio only). */
export function physData(phys: { x: number; y: number; unit: number }): Uint8Array {
  return concat(u32be(phys.x), u32be(phys.y), new Uint8Array([phys.unit]));
}

/** The chunks of a 1x1 grey image: IHDR, IDAT, IEND (put more between them with `pngOf`). */
export const PNG_IHDR = pngChunk("IHDR", concat(u32be(1), u32be(1), new Uint8Array([8, 0, 0, 0, 0])));
// zlib stream of one filtered scanline: filter 0, one grey byte.
export const PNG_IDAT = pngChunk("IDAT", new Uint8Array([0x78, 0x9c, 0x63, 0x60, 0x00, 0x00, 0x00, 0x02, 0x00, 0x01]));
export const PNG_IEND = pngChunk("IEND", new Uint8Array());

/** A PNG of these chunks, in this order, after the signature. */
export function pngOf(...chunks: Uint8Array[]): Uint8Array {
  return concat(new Uint8Array(PNG_SIGNATURE), ...chunks);
}

/** A 1x1 grey PNG; `phys` adds a pHYs chunk (pixels per unit; unit 1 is the metre, 0 an aspect ratio only). */
export function png(phys?: { x: number; y: number; unit: 0 | 1 }): Uint8Array {
  const chunks: Uint8Array[] = [PNG_IHDR];
  if (phys) chunks.push(pngChunk("pHYs", physData(phys)));
  return pngOf(...chunks, PNG_IDAT, PNG_IEND);
}

/** Pixels per metre for a DPI, as encoders write it (300 DPI is 11,811). */
export function ppm(dpi: number): number {
  return Math.round(dpi / 0.0254);
}

/**
 * EXIF resolution: XResolution x/denominator and YResolution y/denominator (each left out when not given),
 * ResolutionUnit when given (1 none, 2 inch, 3 cm), in the byte order given (big-endian "MM" unless told).
 */
interface ExifResolution {
  x?: number;
  y?: number;
  unit?: 1 | 2 | 3;
  order?: "II" | "MM";
  denominator?: number;
}

/** Start of image, the two bytes every JPEG starts with. */
export const JPEG_SOI = new Uint8Array([0xff, 0xd8]);
/** A start-of-scan segment, two bytes of entropy-coded data, and the end of image (FF D9) that closes a JPEG. */
export const JPEG_SCAN = concat(
  jpegSegment(0xda, new Uint8Array([1, 1, 0, 0, 0x3f, 0])),
  new Uint8Array([0x12, 0x34, 0xff, 0xd9]),
);

/** The largest segment body a JPEG can hold (its length field counts itself: 65,535 in all). */
const MAX_SEGMENT_BODY = 65_533;

/**
 * A tiny JPEG stream: SOI, `comments` full-size COM segments (17 of them fill more than 1 MiB), optional JFIF APP0 and
 * EXIF APP1, a scan, EOI. JFIF units: 0 none, 1 DPI, 2 dots per cm.
 */
export function jpeg(options: {
  comments?: number;
  jfif?: { units: 0 | 1 | 2; x: number; y: number };
  exif?: ExifResolution;
}): Uint8Array {
  const parts: Uint8Array[] = [JPEG_SOI];
  for (let i = 0; i < (options.comments ?? 0); i++) parts.push(jpegSegment(0xfe, new Uint8Array(MAX_SEGMENT_BODY).fill(0x20)));
  if (options.jfif) {
    const { units, x, y } = options.jfif;
    parts.push(
      jpegSegment(0xe0, concat(ascii("JFIF\0"), new Uint8Array([1, 2, units, x >> 8, x & 0xff, y >> 8, y & 0xff, 0, 0]))),
    );
  }
  if (options.exif) parts.push(jpegSegment(0xe1, exifBody(options.exif)));
  parts.push(JPEG_SCAN);
  return concat(...parts);
}

/** One JPEG marker segment: FF, the marker, a two-byte length that counts itself, the body. */
export function jpegSegment(marker: number, body: Uint8Array): Uint8Array {
  const length = body.length + 2;
  return concat(new Uint8Array([0xff, marker, length >> 8, length & 0xff]), body);
}

/** "Exif\0\0" + a TIFF with IFD0 holding the XResolution, YResolution and ResolutionUnit given, in tag order. */
function exifBody(exif: ExifResolution): Uint8Array {
  const little = exif.order === "II";
  const denominator = exif.denominator ?? 1;
  const rationals: [tag: number, value: number][] = [];
  if (exif.x !== undefined) rationals.push([0x011a, exif.x]);
  if (exif.y !== undefined) rationals.push([0x011b, exif.y]);
  const count = rationals.length + (exif.unit === undefined ? 0 : 1);
  // TIFF header (8), IFD0: entry count (2), entries (12 each), next-IFD offset (4); then the rationals (8 each).
  const dataOffset = 8 + 2 + count * 12 + 4;
  const tiff = new Uint8Array(dataOffset + rationals.length * 8);
  const view = new DataView(tiff.buffer);
  tiff.set(ascii(little ? "II" : "MM"), 0);
  view.setUint16(2, 42, little);
  view.setUint32(4, 8, little);
  view.setUint16(8, count, little);
  const entry = (i: number, tag: number, type: number) => {
    const at = 10 + i * 12;
    view.setUint16(at, tag, little);
    view.setUint16(at + 2, type, little);
    view.setUint32(at + 4, 1, little);
    return at + 8;
  };
  rationals.forEach(([tag, value], i) => {
    const at = dataOffset + i * 8;
    view.setUint32(entry(i, tag, 5), at, little); // RATIONAL, stored after the IFD
    view.setUint32(at, value, little);
    view.setUint32(at + 4, denominator, little);
  });
  if (exif.unit !== undefined) view.setUint16(entry(rationals.length, 0x0128, 3), exif.unit, little); // SHORT, in place
  return concat(ascii("Exif\0\0"), tiff);
}

/** A PDF of exactly `size` bytes when given (padded with a comment), else a small one. */
export function pdf(size?: number): Uint8Array {
  const head = ascii("%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\n%");
  const tail = ascii("\n%%EOF\n");
  const padding = size === undefined ? 0 : size - head.length - tail.length;
  return concat(head, new Uint8Array(padding).fill(0x41), tail);
}

/** A PDF of these objects (text, or bytes for binary data) after a catalog, with a trailer and its %%EOF. */
export function pdfOf(...objects: (string | Uint8Array)[]): Uint8Array {
  return concat(
    ascii("%PDF-1.7\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n"),
    ...objects.map((object) => (typeof object === "string" ? ascii(`${object}\n`) : object)),
    ascii("trailer << /Root 1 0 R >>\n%%EOF\n"),
  );
}

/** An object holding a stream of these bytes under this dictionary (its /Length added). */
export function pdfStream(header: string, dictionary: string, data: Uint8Array): Uint8Array {
  return concat(
    ascii(`${header} obj << ${dictionary} /Length ${data.length} >> stream\r\n`),
    data,
    ascii("\r\nendstream endobj\n"),
  );
}

/** The start of a DOS/Windows executable: the MZ header and its stub's message. */
function executable(): Uint8Array {
  return concat(
    ascii("MZ"),
    new Uint8Array([0x90, 0, 3, 0, 0, 0, 4, 0]),
    ascii("This program cannot be run in DOS mode.\r\r\n$"),
  );
}

/** A file the hostile test of issue 8 got accepted, the name it was sent under, and the problem it must get now. */
export interface HostileFile {
  name: string;
  filename: string;
  bytes: Uint8Array;
  status: 400 | 415;
  code: Extract<ProblemCode, "resolution_too_low" | "unsupported_media_type">;
}

/**
 * The hostile test's accepted files: 72 DPI stated past the first MiB or on one EXIF axis (400), and bare signatures
 * or a signature in front of something else (415).
 */
export function hostileFiles(): HostileFile[] {
  const low = { status: 400, code: "resolution_too_low" } as const;
  const truncated = { status: 415, code: "unsupported_media_type" } as const;
  const bigChunk = pngChunk("tEXt", concat(ascii("Comment\0"), new Uint8Array(1_100_000).fill(0x41)));
  const lowPhys = pngChunk("pHYs", physData({ x: ppm(72), y: ppm(72), unit: 1 }));
  return [
    {
      name: "a PNG whose 72 DPI pHYs follows a 1.1 MB chunk",
      filename: "deep.png",
      bytes: pngOf(PNG_IHDR, bigChunk, lowPhys, PNG_IDAT, PNG_IEND),
      ...low,
    },
    {
      name: "a JPEG whose 72 DPI JFIF follows 17 filler segments",
      filename: "deep.jpg",
      bytes: jpeg({ comments: 17, jfif: { units: 1, x: 72, y: 72 } }),
      ...low,
    },
    {
      name: "an EXIF with XResolution 72 and no YResolution",
      filename: "one-axis.jpg",
      bytes: jpeg({ exif: { x: 72 } }),
      ...low,
    },
    { name: "a 5-byte %PDF-", filename: "bare.pdf", bytes: ascii("%PDF-"), ...truncated },
    { name: "a bare 3-byte JPEG header FF D8 FF", filename: "bare.jpg", bytes: new Uint8Array([0xff, 0xd8, 0xff]), ...truncated },
    { name: "an 8-byte PNG signature alone", filename: "bare.png", bytes: new Uint8Array(PNG_SIGNATURE), ...truncated },
    {
      name: "%PDF- followed by an executable, no %%EOF",
      filename: "payload.pdf",
      bytes: concat(ascii("%PDF-"), executable()),
      ...truncated,
    },
  ];
}

/** Where a number's files are uploaded; the number id goes in as given (num_<uuid>, bare, or deliberately wrong). */
export function filesPath(numberId: string): string {
  return `/v1/numbers/${numberId}/KYC/files`;
}

/**
 * A multipart upload of one named file and text fields, with the customer's key. Raw, because the typed client has no
 * form for this route: its body is described by a plain JSON Schema (the route reads it itself, bounded).
 */
export function uploadFile(
  customer: Pick<TestCustomer, "call">,
  numberId: string,
  bytes: Uint8Array,
  filename: string,
  fields: Record<string, string> = { document_type: "identity" },
): Promise<Response> {
  const form = new FormData();
  form.set("file", new File([bytes], filename, { type: "application/octet-stream" }));
  for (const [key, value] of Object.entries(fields)) form.set(key, value);
  return customer.call(filesPath(numberId), { method: "POST", body: form });
}

/** The stored document a raw upload answered with: asserts 201 Created and checks the body against the route's own schema. */
export async function createdDocument(response: Response): Promise<z.infer<typeof documentSchema>> {
  const text = await response.text();
  expect(response.status, text).toBe(201);
  return documentSchema.parse(JSON.parse(text));
}
