// Document downloads, shared by the API, portal and console so all answer with the same headers.
import type { DocumentRow } from "../db/schema.ts";
import type { Work } from "../env.ts";
import type { HeaderDescription } from "../http/openapi.ts";
import { contentDisposition } from "../lib/content-disposition.ts";
import { findAnyDocument, viewDocument } from "./documents-store.ts";

/** What a download and its 304 always carry (src/kyc/download.ts sets them). */
export const DOWNLOAD_HEADERS = {
  "Content-Disposition": {
    description: "attachment, with the file's name (ASCII, and exact as filename* per RFC 6266).",
    required: true,
    schema: { type: "string" },
  },
  ETag: {
    description: "The file's entity tag; send it as If-None-Match to get a 304 while the file is unchanged.",
    required: true,
    schema: { type: "string" },
  },
} satisfies Record<string, HeaderDescription>;
/** The media types a download's body may have, for the API description. */
export const DOWNLOAD_CONTENT = {
  "application/pdf": { schema: { type: "string" as const, format: "binary" } },
  "image/jpeg": { schema: { type: "string" as const, format: "binary" } },
  "image/png": { schema: { type: "string" as const, format: "binary" } },
};

/** The headers of a download and of its 304. */
function downloadHeaders(row: DocumentRow, object: R2Object): Headers {
  return new Headers({
    "Content-Type": row.mimeType,
    "Content-Disposition": contentDisposition(row.filename),
    "X-Content-Type-Options": "nosniff",
    "Cache-Control": "private, no-store",
    ETag: object.httpEtag,
  });
}

/** If-None-Match against an ETag, compared weakly (RFC 9110 §13.1.2); a malformed header simply does not match. */
function etagMatches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  if (ifNoneMatch.trim() === "*") return true;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, "");
  return ifNoneMatch.split(",").some((candidate) => opaque(candidate) === opaque(etag));
}

/**
 * The answer to a download of a document's row (a GET, or a HEAD, which reads the file's metadata and not its bytes);
 * undefined when its object is gone.
 */
export async function downloadResponse(bucket: R2Bucket, row: DocumentRow, request: Request): Promise<Response | undefined> {
  const ifNoneMatch = request.headers.get("If-None-Match") ?? undefined;
  const headersOnly = request.method === "HEAD";
  // A conditional request or a HEAD reads only the object's metadata: an unchanged file is answered without its bytes.
  const stored = ifNoneMatch === undefined && !headersOnly ? undefined : await bucket.head(row.objectKey);
  if (stored && etagMatches(ifNoneMatch, stored.httpEtag)) {
    return new Response(null, { status: 304, headers: downloadHeaders(row, stored) });
  }
  if (headersOnly) return stored ? fileResponse(row, stored, null) : undefined;
  const object = await bucket.get(row.objectKey);
  return object ? fileResponse(row, object, object.body) : undefined;
}

/** The 200 of a download, with the file's length whether or not its bytes follow. */
function fileResponse(row: DocumentRow, object: R2Object, body: ReadableStream | null): Response {
  const headers = downloadHeaders(row, object);
  headers.set("Content-Length", String(object.size));
  return new Response(body, { status: 200, headers });
}

/**
 * Any account's document downloaded by staff: a GET records who looked (kyc.document_viewed, which the customer sees
 * too) before the bytes are read; a HEAD reads no bytes and records nothing. Undefined when there is no such document.
 */
export async function staffDownload(
  work: Work,
  documentId: string,
  request: Request,
): Promise<{ row: DocumentRow; answer: Response } | undefined> {
  const row =
    request.method === "HEAD"
      ? await findAnyDocument(work.db, documentId)
      : await viewDocument(work.db, work, documentId, work.now);
  const answer = row && (await downloadResponse(work.documents, row, request));
  return answer && { row, answer };
}
