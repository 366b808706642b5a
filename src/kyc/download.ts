// A document's download: the file streamed with its sniffed type as an attachment, or a 304 for a matching
// If-None-Match. Shared by the API's download route and the portal's, so both answer with the same headers.
import type { DocumentRow } from "../db/schema.ts";
import type { HeaderDescription } from "../http/openapi.ts";
import { contentDisposition } from "../lib/content-disposition.ts";

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
/** What a download's body may be, as the API description says it. */
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

/** The answer to a download of an owned document's row; undefined when its object is gone. */
export async function downloadResponse(
  bucket: R2Bucket,
  row: DocumentRow,
  ifNoneMatch: string | undefined,
): Promise<Response | undefined> {
  // A conditional request reads only the object's metadata: an unchanged file is answered without its bytes.
  const stored = ifNoneMatch === undefined ? undefined : await bucket.head(row.objectKey);
  if (stored && etagMatches(ifNoneMatch, stored.httpEtag)) {
    return new Response(null, { status: 304, headers: downloadHeaders(row, stored) });
  }
  const object = await bucket.get(row.objectKey);
  if (!object) return undefined;
  const headers = downloadHeaders(row, object);
  headers.set("Content-Length", String(object.size));
  return new Response(object.body, { status: 200, headers });
}
