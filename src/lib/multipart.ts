// multipart/form-data (RFC 7578) parsing in bounded work: at most MAX_PARTS parts, as views into the body's bytes.
// Parsing stops at the first extra part, so thousands of empty parts cost no more than a few.
import { decodeUtf8, mediaTypeOf } from "./content.ts";
import { Problem, validationError } from "./problem.ts";

/** One part of a form. */
export interface FormPart {
  name: string;
  /** The part's file name when it is a file (possibly ""), undefined for a text field. */
  filename: string | undefined;
  /** The part's own Content-Type, when it states one. */
  contentType: string | undefined;
  /** The part's content: a view into the body's buffer. */
  data: Uint8Array;
}

/** More parts than any form of ours has (the upload has four fields): a body with more is refused unparsed. */
const MAX_PARTS = 8;
/** A part's header block is a line or two; anything longer is not a form a client of ours sends. */
const MAX_HEADER_BYTES = 8 * 1024;

const CRLF = [0x0d, 0x0a];
const HEADER_END = [0x0d, 0x0a, 0x0d, 0x0a];
const ascii = new TextEncoder();

function malformed(message: string): Problem {
  return validationError([{ location: "body", pointer: "", message: `must be a valid multipart/form-data body: ${message}` }]);
}

/** RFC 2046 boundary: 1-70 characters of a small set, no CR or LF (which keeps the delimiter search linear). */
const BOUNDARY = /^[0-9A-Za-z'()+_,\-./:=? ]{0,69}[0-9A-Za-z'()+_,\-./:=?]$/;

/** The boundary of a multipart/form-data Content-Type; any other type is 415. */
function boundaryOf(contentType: string | undefined): string {
  if (mediaTypeOf(contentType) !== "multipart/form-data") {
    throw new Problem("unsupported_media_type", "Content-Type must be multipart/form-data");
  }
  const match = contentType!.match(/;\s*boundary\s*=\s*(?:"([^"]*)"|([^\s;]+))/i);
  const boundary = match ? (match[1] ?? match[2]) : undefined;
  if (boundary === undefined || !BOUNDARY.test(boundary)) throw malformed("the Content-Type has no valid boundary");
  return boundary;
}

/**
 * The first index at or after `from` where `pattern` starts, or -1. Linear: the search jumps from one occurrence of
 * the pattern's first byte to the next (natively), and the first byte never recurs inside the patterns used here.
 */
function indexOf(bytes: Uint8Array, pattern: readonly number[] | Uint8Array, from: number): number {
  const first = pattern[0]!;
  for (let at = bytes.indexOf(first, from); at !== -1; at = bytes.indexOf(first, at + 1)) {
    if (at + pattern.length > bytes.length) return -1;
    let i = 1;
    while (i < pattern.length && bytes[at + i] === pattern[i]) i++;
    if (i === pattern.length) return at;
  }
  return -1;
}

function startsAt(bytes: Uint8Array, pattern: readonly number[], at: number): boolean {
  return pattern.every((byte, i) => bytes[at + i] === byte);
}

/**
 * A header's parameters (`name="value"` or `name=value`), names lowercased. Quoted values are taken as they are:
 * browsers escape a quote in a name as %22 and never escape a backslash (the HTML standard), so `C:\dir\a.pdf` is
 * a name, not an escape sequence.
 */
function parameters(header: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const match of header.matchAll(/;\s*([!#$%&'*+.^_`|~0-9A-Za-z-]+)\s*=\s*(?:"([^"]*)"|([^\s;"]*))/g)) {
    found.set(match[1]!.toLowerCase(), match[2] ?? match[3]!);
  }
  return found;
}

function readPartHeaders(block: string): Omit<FormPart, "data"> {
  let disposition: string | undefined;
  let contentType: string | undefined;
  for (const line of block.split("\r\n")) {
    const colon = line.indexOf(":");
    if (colon <= 0) throw malformed("a part has a malformed header line");
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (name === "content-disposition") disposition = value;
    else if (name === "content-type") contentType = value;
  }
  if (disposition === undefined || !/^form-data\s*(;|$)/i.test(disposition)) {
    throw malformed("every part needs a Content-Disposition: form-data header");
  }
  const params = parameters(disposition);
  const name = params.get("name");
  if (name === undefined) throw malformed("every part needs a name");
  return { name, filename: params.get("filename"), contentType };
}

/** Where the part after the body's first delimiter starts (a preamble before it is allowed), or -1 without one. */
export function opening(body: Uint8Array, delimiter: Uint8Array): number {
  // The first delimiter may open the body, without the CRLF in front (anything before it is a preamble).
  const at = startsAt(body, [...delimiter.subarray(2)], 0) ? -2 : indexOf(body, delimiter, 0);
  return at === -1 ? -1 : at + delimiter.length;
}

/**
 * The part that starts at `at` (right after a delimiter), and where the next delimiter ends; null when "--" closes the
 * body there, "incomplete" when the bytes end before the part does (a peek at the body's start).
 */
export function partAt(
  body: Uint8Array,
  at: number,
  delimiter: Uint8Array,
): { part: FormPart; next: number } | null | "incomplete" {
  // After a delimiter: "--" closes the body; otherwise a CRLF starts the next part (transport padding allowed).
  if (body[at] === 0x2d && body[at + 1] === 0x2d) return null;
  while (body[at] === 0x20 || body[at] === 0x09) at++;
  if (at + 2 > body.length) return "incomplete";
  if (!startsAt(body, CRLF, at)) throw malformed("a delimiter is not followed by a line break");
  const headersStart = at + 2;
  const headersEnd = indexOf(body.subarray(0, headersStart + MAX_HEADER_BYTES), HEADER_END, headersStart);
  if (headersEnd === -1) {
    if (body.length < headersStart + MAX_HEADER_BYTES) return "incomplete";
    throw malformed("a part's headers do not end");
  }
  const block = decodeUtf8(body.subarray(headersStart, headersEnd));
  if (block === undefined) throw malformed("a part's headers are not valid UTF-8");
  const contentStart = headersEnd + HEADER_END.length;
  const contentEnd = indexOf(body, delimiter, contentStart);
  if (contentEnd === -1) return "incomplete";
  return {
    part: { ...readPartHeaders(block), data: body.subarray(contentStart, contentEnd) },
    next: contentEnd + delimiter.length,
  };
}

/** The delimiter between parts of a body with this Content-Type (a CRLF, "--", the boundary); not multipart is 415. */
export function delimiterOf(contentType: string | undefined): Uint8Array {
  return ascii.encode(`\r\n--${boundaryOf(contentType)}`);
}

/** Splits a multipart body into its parts (views into `body`); more than MAX_PARTS parts is a 400, found unparsed. */
export function parseMultipart(body: Uint8Array, delimiter: Uint8Array): FormPart[] {
  let at = opening(body, delimiter);
  if (at === -1) throw malformed("the boundary does not occur in the body");
  const parts: FormPart[] = [];
  for (;;) {
    if (parts.length === MAX_PARTS && !(body[at] === 0x2d && body[at + 1] === 0x2d)) {
      throw malformed(`a form has at most ${MAX_PARTS} parts`);
    }
    const found = partAt(body, at, delimiter);
    if (found === null) return parts;
    if (found === "incomplete") throw malformed("the body ends before its closing boundary");
    parts.push(found.part);
    at = found.next;
  }
}
