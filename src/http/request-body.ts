// Reads a request body once into a bounded buffer shared by every reader (JSON check, idempotency fingerprint, upload).
// JSON bodies are limited to 64 KiB, strict UTF-8, and refused when an object repeats a key.
import type { Context, MiddlewareHandler } from "hono";
import { matchedRoutes } from "hono/route";
import { decodeUtf8, mediaTypeOf } from "../lib/content.ts";
import { duplicateKeyPointer } from "../lib/json.ts";
import { Problem } from "../lib/problem.ts";
import { ClientClosed } from "./problem.ts";

const JSON_BODY_LIMIT = 64 * 1024;

/** A body's stream, with the chunks read from it so far: a peek at its start keeps them for the whole read. */
interface BodyStream {
  reader: ReadableStreamDefaultReader<Uint8Array>;
  chunks: Uint8Array[];
  size: number;
  done: boolean;
}

const streams = new WeakMap<Request, BodyStream>();

function streamOf(request: Request): BodyStream | undefined {
  let stream = streams.get(request);
  if (!stream && request.body) {
    stream = { reader: request.body.getReader(), chunks: [], size: 0, done: false };
    streams.set(request, stream);
  }
  return stream;
}

/** The next chunk of the body, or undefined at its end; a client gone mid-body is ClientClosed. */
async function nextChunk(stream: BodyStream): Promise<Uint8Array | undefined> {
  if (stream.done) return undefined;
  let chunk: ReadableStreamReadResult<Uint8Array>;
  try {
    chunk = await stream.reader.read();
  } catch (error) {
    throw new ClientClosed("The client closed the connection while sending its body", { cause: error });
  }
  if (chunk.done) stream.done = true;
  return chunk.value;
}

/** The length a request declares, when it declares a plain one. */
export function declaredLengthOf(request: Request): number | undefined {
  const declared = request.headers.get("Content-Length");
  return declared !== null && /^[0-9]{1,15}$/.test(declared) ? Number(declared) : undefined;
}

/**
 * The whole body, at most `limit` bytes: a declared length past the limit is refused before reading, a body that grows
 * past it as soon as it does. A body of declared length is read into one buffer of that size, so it is never held
 * twice; one of undeclared length (chunked) is gathered as it comes and joined at its end, so that a small body does not
 * cost a buffer of the limit (10 MiB for an upload). Whatever a peek (bodyStartGrown) read comes first.
 */
async function readBounded(request: Request, limit: number, tooLarge: () => Problem): Promise<Uint8Array> {
  const declaredLength = declaredLengthOf(request);
  if (declaredLength !== undefined && declaredLength > limit) throw tooLarge();
  const stream = streamOf(request);
  if (!stream) return new Uint8Array(0);
  const buffer = declaredLength === undefined ? undefined : new Uint8Array(declaredLength);
  const gathered: Uint8Array[] = [];
  let size = 0;
  const append = async (chunk: Uint8Array) => {
    if (size + chunk.byteLength > (declaredLength ?? limit)) {
      await stream.reader.cancel().catch(() => undefined);
      throw tooLarge();
    }
    if (buffer) buffer.set(chunk, size);
    else gathered.push(chunk);
    size += chunk.byteLength;
  };
  const peeked = stream.chunks;
  stream.chunks = [];
  stream.size = 0;
  for (const chunk of peeked) await append(chunk);
  for (let chunk = await nextChunk(stream); chunk !== undefined; chunk = await nextChunk(stream)) await append(chunk);
  return buffer ? buffer.subarray(0, size) : joined(gathered, size);
}

/** Chunks of `size` bytes in all, as one array (the chunk itself when there is one). */
function joined(chunks: Uint8Array[], size: number): Uint8Array {
  if (chunks.length === 1) return chunks[0] as Uint8Array;
  const whole = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    whole.set(chunk, at);
    at += chunk.byteLength;
  }
  return whole;
}

/**
 * The start of a multipart body, one more chunk of it than the last call read (undefined at the body's end), read no
 * further and kept for requestBody: a guard can look at a form's first part before the route decides whether to read
 * the rest. A body declared larger than the upload limit is refused unread.
 */
export async function bodyStartGrown(request: Request): Promise<Uint8Array | undefined> {
  const declaredLength = declaredLengthOf(request);
  if (declaredLength !== undefined && declaredLength > MULTIPART_LIMIT) throw fileTooLarge();
  const stream = streamOf(request);
  const chunk = stream && (await nextChunk(stream));
  if (!stream || chunk === undefined) return undefined;
  stream.chunks.push(chunk);
  stream.size += chunk.byteLength;
  return joined(stream.chunks, stream.size);
}

/** A file upload's largest file; a multipart body may carry MULTIPART_ENVELOPE_BYTES more (boundaries, text fields). */
export const MAX_FILE_BYTES = 10 * 1024 * 1024;
/** The same, formatted for messages. */
export const MAX_FILE_SIZE = `${MAX_FILE_BYTES / (1024 * 1024)} MiB`;
const MULTIPART_ENVELOPE_BYTES = 64 * 1024;
const MULTIPART_LIMIT = MAX_FILE_BYTES + MULTIPART_ENVELOPE_BYTES;

export function fileTooLarge(): Problem {
  return new Problem("payload_too_large", `Files are limited to ${MAX_FILE_BYTES} bytes (${MAX_FILE_SIZE})`);
}

function bodyTooLarge(limit: number): () => Problem {
  return () =>
    new Problem(
      "payload_too_large",
      limit === JSON_BODY_LIMIT ? `JSON bodies are limited to ${limit} bytes` : `This body is limited to ${limit} bytes`,
    );
}

const bodies = new WeakMap<Request, Promise<Uint8Array>>();
/** The limits of requests whose route takes a larger body (takesLargeBody), as strictJsonBody found them. */
const largeBodyLimits = new WeakMap<Request, number>();

/**
 * The raw bytes of a request's body, read once however often asked: at most MAX_FILE_BYTES and an envelope for a
 * multipart/form-data body; the route's own limit for a route that takes a larger body; else JSON_BODY_LIMIT.
 */
export function requestBody(request: Request): Promise<Uint8Array> {
  let body = bodies.get(request);
  if (!body) {
    const multipart = isMultipart(request);
    const limit = multipart ? MULTIPART_LIMIT : (largeBodyLimits.get(request) ?? JSON_BODY_LIMIT);
    body = readBounded(request, limit, multipart ? fileTooLarge : bodyTooLarge(limit));
    bodies.set(request, body);
  }
  return body;
}

/**
 * The mark of a route that takes bodies larger than 64 KiB: its limit in bytes per media type. Put in the route's
 * middleware, after its guards: only then is such a body read (a JSON one decoded as strictJsonBody decodes the
 * others), so no caller the guards refuse gets more than 64 KiB read.
 */
export function takesLargeBody(limits: Record<string, number>): MiddlewareHandler & { bodyLimits: Record<string, number> } {
  const readJson: MiddlewareHandler = async (c, next) => {
    if (c.req.raw.body && JSON_MEDIA_TYPE.test(mediaTypeOf(c.req.header("Content-Type")))) {
      cacheJsonText(c, await requestBody(c.req.raw));
    }
    await next();
  };
  return Object.assign(readJson, { bodyLimits: limits });
}

/** The larger limit the matched route takes for this request's media type, if it takes one. */
function largeBodyLimit(c: Context): number | undefined {
  const mediaType = mediaTypeOf(c.req.header("Content-Type"));
  for (const { handler } of matchedRoutes(c)) {
    const limits = (handler as Partial<{ bodyLimits: Record<string, number> }>).bodyLimits;
    if (limits && Object.hasOwn(limits, mediaType)) return limits[mediaType];
  }
  return undefined;
}

/** Whether the request's body is multipart/form-data (a file upload), which has limits and a reader of its own. */
export function isMultipart(request: Request): boolean {
  return mediaTypeOf(request.headers.get("Content-Type") ?? undefined) === "multipart/form-data";
}

const JSON_MEDIA_TYPE = /^application\/([\w.-]+\+)?json$/;

/** The charset parameter of a Content-Type header, unquoted, or undefined when it names none. */
function charsetOf(contentType: string): string | undefined {
  const match = contentType.match(/;\s*charset\s*=\s*(?:"([^"]*)"|([^\s;]*))/i);
  return match ? (match[1] ?? match[2]) : undefined;
}

/** Whether a charset label is a name of UTF-8 ("utf-8", "UTF8", "unicode-1-1-utf-8", …, per the Encoding standard). */
function isUtf8Label(label: string): boolean {
  try {
    return new TextDecoder(label).encoding === "utf-8";
  } catch {
    return false;
  }
}

/**
 * A JSON body on the routes it guards must be UTF-8 (another charset is 415), at most 64 KiB (refused unread when it
 * says it is larger), valid UTF-8 (else 400 malformed_json, rather than silently replaced) and name no key twice in one
 * object (400 malformed_json: JSON.parse would keep the last); the route's validator then parses the text decoded
 * here. Bodies of other types are left to the route, which refuses them (415). A route that takes a larger body
 * (takesLargeBody) has its limit recorded here and a body declared larger refused unread, but its body is read by its
 * own middleware, after its guards.
 */
export const strictJsonBody: MiddlewareHandler = async (c, next) => {
  const large = largeBodyLimit(c);
  if (large !== undefined) {
    largeBodyLimits.set(c.req.raw, large);
    const declared = declaredLengthOf(c.req.raw);
    if (declared !== undefined && declared > large) throw bodyTooLarge(large)();
  }
  const contentType = c.req.header("Content-Type");
  if (!c.req.raw.body || !JSON_MEDIA_TYPE.test(mediaTypeOf(contentType))) return next();
  const charset = charsetOf(contentType!);
  if (charset !== undefined && !isUtf8Label(charset)) {
    throw new Problem("unsupported_media_type", `JSON bodies must be UTF-8; charset "${charset}" is not supported`);
  }
  if (large === undefined) cacheJsonText(c, await requestBody(c.req.raw));
  await next();
};

function cacheJsonText(c: Context, bytes: Uint8Array): void {
  const text = decodeUtf8(bytes);
  if (text === undefined) throw new Problem("malformed_json", "The request body is not valid UTF-8");
  const duplicate = duplicateKeyPointer(text);
  if (duplicate !== undefined) {
    throw new Problem(
      "malformed_json",
      `The request body names a key twice in one object, at ${duplicate}; each key may appear once`,
      {
        errors: [{ location: "body", pointer: duplicate, message: "is named twice in its object" }],
      },
    );
  }
  // Hono's c.req.json() (which the route's validator calls) parses this text instead of reading the body again. Its
  // cache holds promises, though its type says otherwise.
  c.req.bodyCache.text = Promise.resolve(text) as unknown as string;
}
