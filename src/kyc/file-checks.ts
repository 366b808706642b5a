// Judges an uploaded file by its whole structure: a complete PDF, JPEG or PNG matching its name; a PDF with no active
// content; an image with no stated resolution under 300 DPI.

import { inflateSync } from "node:zlib";
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

/**
 * A PDF states no resolution; it is whole when its %%EOF marker lies within the last 1024 bytes, and it must only show:
 * no name of its objects (nor of those packed in its object streams) may make it act (ACTIVE_PDF_NAMES).
 */
function walkPdf(bytes: Uint8Array): void {
  const from = Math.max(0, bytes.length - PDF_EOF_WINDOW);
  let whole = false;
  for (let at = bytes.length - PDF_EOF.length; at >= from && !whole; at--) whole = startsWithAt(bytes, PDF_EOF, at);
  if (!whole) throw unsupported(`The PDF has no %%EOF marker in its last ${PDF_EOF_WINDOW} bytes`);
  scanPdfObjects(bytes, { inflated: 0 });
}

/**
 * Names that make a PDF act rather than show: a script (/JS, /JavaScript), an XFA form (/XFA, whose XML carries scripts
 * readers run), a program started (/Launch), a file carried inside (/EmbeddedFile, /EmbeddedFiles, and /EF, the file
 * specification's key for one). A scanned document never needs them, and staff open documents in their browser.
 */
const ACTIVE_PDF_NAMES: ReadonlyMap<string, string> = new Map([
  ["JS", "JavaScript"],
  ["JavaScript", "JavaScript"],
  ["XFA", "an XFA form"],
  ["Launch", "a Launch action"],
  ["EmbeddedFile", "an embedded file"],
  ["EmbeddedFiles", "an embedded file"],
  ["EF", "an embedded file"],
]);
/** The longest name worth decoding: every active name is shorter. */
const LONGEST_ACTIVE_NAME = 16;
/** At most this many bytes come out of a PDF's object streams, inflated: far more than any scan's objects take. */
const MAX_INFLATED_BYTES = 16 * 1024 * 1024;
const FLATE_FILTERS = new Set(["FlateDecode", "Fl"]);
/** The bytes a PDF's object reads may add up to, in sizes of the file. */
const MAX_READ_FACTOR = 8;

/** What a PDF's check has spent: the bytes inflated from its object streams. */
interface Budget {
  inflated: number;
}
const ENDSTREAM = ascii("endstream");

function isPdfWhitespace(byte: number): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09 || byte === 0x0c || byte === 0x00;
}

/** ( ) < > [ ] { } / % end a name or a keyword. */
function isPdfDelimiter(byte: number): boolean {
  return (
    byte === 0x28 ||
    byte === 0x29 ||
    byte === 0x3c ||
    byte === 0x3e ||
    byte === 0x5b ||
    byte === 0x5d ||
    byte === 0x7b ||
    byte === 0x7d ||
    byte === 0x2f ||
    byte === 0x25
  );
}

function hexValue(byte: number | undefined): number {
  if (byte === undefined) return -1;
  if (byte >= 0x30 && byte <= 0x39) return byte - 0x30;
  const lower = byte | 0x20;
  return lower >= 0x61 && lower <= 0x66 ? lower - 0x61 + 10 : -1;
}

/** A name's bytes as a reader takes them, each #xx escape decoded ("J#53" is "JS"); undefined when too long to matter. */
function pdfName(bytes: Uint8Array, start: number, end: number): string | undefined {
  let name = "";
  for (let at = start; at < end; at++) {
    if (name.length > LONGEST_ACTIVE_NAME) return undefined;
    const high = bytes[at] === 0x23 ? hexValue(bytes[at + 1]) : -1;
    const low = high === -1 ? -1 : hexValue(bytes[at + 2]);
    if (low === -1) name += String.fromCharCode(bytes[at]!);
    else {
      name += String.fromCharCode(high * 16 + low);
      at += 2;
    }
  }
  return name;
}

function indexOfBytes(bytes: Uint8Array, pattern: readonly number[], from: number): number {
  for (let at = bytes.indexOf(pattern[0]!, from); at !== -1; at = bytes.indexOf(pattern[0]!, at + 1)) {
    if (startsWithAt(bytes, pattern, at)) return at;
  }
  return -1;
}

/** The decoded name starting at the slash at `start`, refused when it is active; answers the index after it. */
function readPdfName(bytes: Uint8Array, start: number, where: string, names: string[]): number {
  let end = start + 1;
  while (end < bytes.length && !isPdfWhitespace(bytes[end]!) && !isPdfDelimiter(bytes[end]!)) end++;
  const name = pdfName(bytes, start + 1, end);
  const active = name === undefined ? undefined : ACTIVE_PDF_NAMES.get(name);
  if (active) {
    throw unsupported(
      `The PDF contains ${active} (the name /${name}${where}); documents that run scripts, start programs or carry ` +
        "files are refused: print the document to a new PDF, or scan it",
    );
  }
  if (name !== undefined) names.push(name);
  return end;
}

const OBJ = ascii("obj");

function isAsciiLetter(byte: number): boolean {
  const lower = byte | 0x20;
  return lower >= 0x61 && lower <= 0x7a;
}

/**
 * Whether `obj` at `at` is the keyword that ends an object's header: a token of its own after, and no letter before
 * (`endobj`). What precedes it is not required to be "<number> <generation>": readers skip comments between them
 * (`3 0%c` LF `obj`), end a number at any other byte (`3 0obj`) and take `+3` or `3.0` for 3.
 */
function isObjKeyword(bytes: Uint8Array, at: number): boolean {
  const after = bytes[at + OBJ.length];
  if (after !== undefined && !isPdfWhitespace(after) && !isPdfDelimiter(after)) return false;
  return at === 0 || !isAsciiLetter(bytes[at - 1]!);
}

/**
 * Every object of a PDF, found wherever its `obj` keyword stands: a reader takes an object at the offset its
 * cross-reference table gives (or, rebuilding a broken table, wherever a header is), which may lie inside what reads as
 * a comment, a string or another stream's data from the file's start. Each is read from its keyword as a reader reads it.
 */
function scanPdfObjects(bytes: Uint8Array, budget: Budget): void {
  // Objects overlap only in a crafted file (a header in another's string): their reads are held to a few times the
  // file's size, so headers in an endless string cost linear time, not quadratic.
  const most = MAX_READ_FACTOR * bytes.length;
  let read = 0;
  for (let at = indexOfBytes(bytes, OBJ, 0); at !== -1; at = indexOfBytes(bytes, OBJ, at + 1)) {
    if (!isObjKeyword(bytes, at)) continue;
    read += scanPdfObject(bytes, at + OBJ.length, budget) - at;
    if (read > most) throw unsupported("The PDF's objects overlap too much to be checked for scripts");
  }
}

/** The keys a reader takes a stream's filters from: /F is the inline image's abbreviation, which pdf.js reads too. */
const FILTER_KEYS = new Set(["Filter", "F"]);

/**
 * Follows the value of a stream's /Filter as an object's tokens go by, to see whether it names a filter by reference
 * ("5 0 R", or one in an array): the filter is then another object's name, which the check cannot follow.
 */
class FilterValue {
  #state: "none" | "after-key" | "in-array" = "none";
  #tokens = 0;
  byReference = false;

  name(name: string | undefined): void {
    if (name !== undefined && FILTER_KEYS.has(name)) {
      this.#state = "after-key";
      this.#tokens = 0;
    } else if (this.#state === "after-key") this.#state = "none";
  }

  /** A number or a keyword: `R` after the key's two numbers, or anywhere in its array, is a reference. */
  keyword(keyword: string): void {
    if (this.#state !== "none" && keyword === "R") this.byReference = true;
    if (this.#state === "after-key" && ++this.#tokens > 2) this.#state = "none";
  }

  delimiter(byte: number): void {
    if (byte === 0x5b && this.#state === "after-key") this.#state = "in-array";
    else if (byte !== 0x5b) this.#state = "none";
  }
}

/**
 * One object read from just after its header to its endobj: comments, literal and hex strings skipped (a name in them
 * is text), each name decoded and refused when active. A stream's data is not read, but for an object stream's (a
 * /Type /ObjStm, or a stream with /First, which some readers take as one without the type). Answers where it stopped.
 */
function scanPdfObject(bytes: Uint8Array, start: number, budget: Budget): number {
  const names: string[] = [];
  const filter = new FilterValue();
  let at = start;
  while (at < bytes.length) {
    const byte = bytes[at]!;
    if (isPdfWhitespace(byte)) at++;
    else if (byte === 0x25) {
      while (at < bytes.length && bytes[at] !== 0x0a && bytes[at] !== 0x0d) at++;
    } else if (byte === 0x2f) {
      const count = names.length;
      at = readPdfName(bytes, at, "", names);
      filter.name(names.length > count ? names[count] : undefined);
    } else if (isPdfDelimiter(byte)) {
      filter.delimiter(byte);
      if (byte === 0x28) at = afterLiteralString(bytes, at);
      else if (byte === 0x3c && bytes[at + 1] === 0x3c) at += 2;
      else if (byte === 0x3c) {
        const end = bytes.indexOf(0x3e, at);
        at = end === -1 ? bytes.length : end + 1;
      } else at++;
    } else {
      let end = at;
      while (end < bytes.length && !isPdfWhitespace(bytes[end]!) && !isPdfDelimiter(bytes[end]!)) end++;
      const keyword = end - at <= 6 ? String.fromCharCode(...bytes.subarray(at, end)) : "";
      if (keyword === "endobj" || keyword === "obj") return end;
      filter.keyword(keyword);
      at = end;
      if (keyword === "stream") {
        if (!names.includes("ObjStm") && !names.includes("First")) return at;
        if (filter.byReference) {
          throw unsupported(
            "The PDF packs objects in a stream whose filter is given by reference to another object, which cannot be " +
              "checked for scripts; print the document to a new PDF, or scan it",
          );
        }
        // The data starts after the keyword's end of line (CR LF or LF) and ends at the next endstream.
        if (bytes[at] === 0x0d) at++;
        if (bytes[at] === 0x0a) at++;
        const found = indexOfBytes(bytes, ENDSTREAM, at);
        const end = found === -1 ? bytes.length : found;
        scanObjectStream(bytes.subarray(at, end), names, budget);
        return end;
      }
    }
  }
  return at;
}

/** The index after a literal string starting at `start`: parentheses nest, a backslash escapes the next byte. */
function afterLiteralString(bytes: Uint8Array, start: number): number {
  let depth = 0;
  for (let at = start; at < bytes.length; at++) {
    const byte = bytes[at];
    if (byte === 0x5c) at++;
    else if (byte === 0x28) depth++;
    else if (byte === 0x29 && --depth === 0) return at + 1;
  }
  return bytes.length;
}

/**
 * An object stream's objects, as they are or inflated (FlateDecode, without parameters; any other encoding cannot be
 * checked). Readers take each object at an offset the stream lists, so every name in it is judged, in strings too.
 */
function scanObjectStream(data: Uint8Array, names: string[], budget: Budget): void {
  const filters = names.filter((name) => /Decode$|^(?:Fl|AHx|A85|LZW|RL|CCF|DCT)$/.test(name));
  const withParameters = names.includes("DecodeParms") || names.includes("DP");
  let objects = data;
  let where = " in an object stream";
  if (filters.length > 0) {
    if (filters.length > 1 || !FLATE_FILTERS.has(filters[0]!) || withParameters) {
      throw unsupported(
        `The PDF packs objects in a stream encoded as ${filters.map((f) => `/${f}`).join(" ")}` +
          `${withParameters ? " with parameters" : ""}, which cannot be checked for scripts; print the document to a ` +
          "new PDF, or scan it",
      );
    }
    try {
      objects = inflateSync(data, { maxOutputLength: Math.max(1, MAX_INFLATED_BYTES - budget.inflated) });
    } catch (error) {
      throw unsupported(
        // Past maxOutputLength zlib throws a RangeError (workerd's says "Memory limit exceeded"); a broken stream an Error.
        error instanceof RangeError
          ? `The PDF's object streams inflate to more than ${MAX_INFLATED_BYTES} bytes, too much to check for scripts`
          : "The PDF has an object stream that cannot be inflated (encrypted, or broken), so it cannot be checked for " +
              "scripts; print the document to a new PDF, or scan it",
      );
    }
    budget.inflated += objects.byteLength;
    where = " in a compressed object stream";
  }
  for (let at = objects.indexOf(0x2f); at !== -1; at = objects.indexOf(0x2f, at + 1)) readPdfName(objects, at, where, []);
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
