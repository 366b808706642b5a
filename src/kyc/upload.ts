// Reading and checking a KYC file upload: a bounded multipart body, its fields, and the file judged by its bytes.
import { ApiError, type FieldError, validationError } from "../http/problem.ts";
import { issuesToFieldErrors } from "../http/validation.ts";
import { todayUtc } from "../lib/time.ts";
import type { CheckedFile } from "./documents.ts";
import { checkFile } from "./file-checks.ts";
import { MAX_FILE_BYTES, uploadFields } from "./schemas.ts";

/** Room for the multipart envelope and the text fields on top of the largest file. */
const ENVELOPE_BYTES = 64 * 1024;
const MAX_FILENAME_LENGTH = 255;

function tooLarge(): ApiError {
  return new ApiError("payload_too_large", `Files are limited to ${MAX_FILE_BYTES} bytes (10 MiB)`);
}

/**
 * Reads the body while counting: a declared length past the limit is refused before reading, a streamed one
 * as soon as it passes the limit, so no more than the limit is ever held in memory.
 */
async function readBounded(request: Request, limit: number): Promise<Uint8Array> {
  const declared = request.headers.get("Content-Length");
  if (declared !== null && Number(declared) > limit) throw tooLarge();
  if (!request.body) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      throw tooLarge();
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

async function readForm(request: Request): Promise<FormData> {
  const contentType = request.headers.get("Content-Type") ?? "";
  if (!/^multipart\/form-data\s*;/i.test(contentType)) {
    throw new ApiError("unsupported_media_type", "Content-Type must be multipart/form-data");
  }
  const bytes = await readBounded(request, MAX_FILE_BYTES + ENVELOPE_BYTES);
  try {
    return await new Response(bytes, {
      headers: { "Content-Type": contentType },
    }).formData();
  } catch {
    throw validationError([
      {
        location: "body",
        pointer: "",
        message: "must be a valid multipart/form-data body",
      },
    ]);
  }
}

const UPLOAD_FIELDS = new Set(["file", "document_type", "description", "expiration_date"]);
/** More field errors than this are not listed: a hostile form could otherwise name thousands. */
const MAX_FIELD_ERRORS = 20;

/** Parses and checks an upload; throws the problem for the first rule it breaks (all field errors at once). */
export async function readUpload(request: Request, now: number): Promise<CheckedFile> {
  const form = await readForm(request);
  const errors: FieldError[] = [];
  // No prototype: a field named "__proto__" is a field like any other (and refused as unknown).
  const fields: Record<string, string> = Object.create(null);
  const seen = new Set<string>();
  let file: File | undefined;
  // One pass over the parts; unknown and repeated names are errors, never looked up again.
  for (const [key, value] of form) {
    if (errors.length >= MAX_FIELD_ERRORS) break;
    if (!UPLOAD_FIELDS.has(key)) {
      errors.push({
        location: "body",
        pointer: `/${key}`,
        message: "is not allowed",
      });
    } else if (seen.has(key)) {
      errors.push({
        location: "body",
        pointer: `/${key}`,
        message: "must be given once",
      });
    } else if (key === "file") {
      if (typeof value === "string")
        errors.push({
          location: "body",
          pointer: "/file",
          message: "must be a file",
        });
      else if (value.name.length < 1 || value.name.length > MAX_FILENAME_LENGTH) {
        errors.push({
          location: "body",
          pointer: "/file",
          message: `must have a file name of 1-${MAX_FILENAME_LENGTH} characters`,
        });
      } else file = value;
    } else if (typeof value !== "string") {
      errors.push({
        location: "body",
        pointer: `/${key}`,
        message: "must be a text field",
      });
    } else {
      fields[key] = value;
    }
    seen.add(key);
  }
  if (!seen.has("file")) errors.push({ location: "body", pointer: "/file", message: "is required" });
  const parsed = uploadFields.safeParse(fields);
  if (!parsed.success) errors.push(...issuesToFieldErrors(parsed.error.issues, "body"));
  const expirationDate = parsed.success ? parsed.data.expiration_date : undefined;
  if (expirationDate !== undefined && expirationDate < todayUtc(now)) {
    errors.push({
      location: "body",
      pointer: "/expiration_date",
      message: "must not be in the past",
    });
  }
  if (errors.length > 0 || !parsed.success || !file) throw validationError(errors.slice(0, MAX_FIELD_ERRORS));

  if (file.size > MAX_FILE_BYTES) throw tooLarge();
  const type = checkFile(new Uint8Array(await file.arrayBuffer()), file.name);
  return {
    content: file,
    filename: file.name,
    mimeType: type.mimeType,
    documentType: parsed.data.document_type,
    description: parsed.data.description ?? null,
    expirationDate: expirationDate ?? null,
  };
}
