// Reads and checks a KYC file upload: a bounded multipart body, its fields, and the file judged by its bytes.
import { singleLineText } from "../http/fields.ts";
import { claimBeforeReadingBody } from "../http/idempotency.ts";
import { formParts } from "../http/multipart.ts";
import { fileTooLarge, MAX_FILE_BYTES } from "../http/request-body.ts";
import { issuesToFieldErrors } from "../http/validation.ts";
import { decodeUtf8 } from "../lib/content.ts";
import type { FormPart } from "../lib/multipart.ts";
import { done, type FieldError, Problem, type Result, refusals, refused, validationError } from "../lib/problem.ts";
import { todayUtc } from "../lib/time.ts";
import type { CheckedFile } from "./documents.ts";
import { checkFile } from "./file-checks.ts";
import { uploadFields } from "./schemas.ts";
import type { UploadReader } from "./use-cases.ts";

/** A file name is text on one line, like any other name. */
const filenameSchema = singleLineText().min(1).max(255);

const UPLOAD_FIELDS = new Set(["file", "document_type", "description", "expiration_date"]);

/**
 * How the form was sent: "api" takes the fields as given; "portal" is a browser's form, which carries the session's
 * csrf_token (the guard's, checked before) and sends every field, "" for an empty one and a nameless empty file when
 * none was chosen: those count as absent.
 */
export type UploadForm = "api" | "portal";

function absentInPortal(part: FormPart): boolean {
  if (part.name === "csrf_token") return true;
  return part.data.byteLength === 0 && (part.filename === undefined || part.filename === "");
}

/** The problems of reading an upload: a bad form, a file too large, not a file it takes, a scan under the minimum DPI. */
export const UPLOAD_FILE_REFUSALS = refusals(
  "validation_error",
  "payload_too_large",
  "unsupported_media_type",
  "resolution_too_low",
);
type UploadFileCode = (typeof UPLOAD_FILE_REFUSALS)[number];

function isUploadFileProblem(error: unknown): error is Problem<UploadFileCode> {
  return error instanceof Problem && (UPLOAD_FILE_REFUSALS as readonly string[]).includes(error.code);
}

/** Reads and checks an upload's body: the file, or the problem of the first rule it breaks (all field errors at once). */
export async function readUpload(
  request: Request,
  now: number,
  form: UploadForm = "api",
): Promise<Result<CheckedFile, typeof UPLOAD_FILE_REFUSALS>> {
  try {
    return done(await checkedUpload(request, now, form));
  } catch (error) {
    // The multipart reader and the file checks throw their problem from deep in a walk; it ends here.
    if (isUploadFileProblem(error)) return refused(error);
    throw error;
  }
}

/**
 * The API's reader of an upload: an Idempotency-Key is claimed first (the claim reads the body for its fingerprint,
 * which is why the upload's target is checked before this runs), then the body is read.
 */
export function apiUploadReader(request: Request, now: number): UploadReader<typeof UPLOAD_FILE_REFUSALS> {
  return async () => {
    await claimBeforeReadingBody(request);
    return readUpload(request, now);
  };
}

async function checkedUpload(request: Request, now: number, form: UploadForm): Promise<CheckedFile> {
  const all = await formParts(request);
  const parts = form === "portal" ? all.filter((part) => !absentInPortal(part)) : all;
  const errors: FieldError[] = [];
  // No prototype: a field named "__proto__" is a field like any other (and refused as unknown).
  const fields: Record<string, string> = Object.create(null);
  const seen = new Set<string>();
  let file: FormPart | undefined;
  // One pass over the parts; unknown and repeated names are errors, never looked up again.
  for (const part of parts) {
    const key = part.name;
    const pointer = `/${key}`;
    if (!UPLOAD_FIELDS.has(key)) {
      errors.push({ location: "body", pointer, message: "is not allowed" });
    } else if (seen.has(key)) {
      errors.push({ location: "body", pointer, message: "must be given once" });
    } else if (key === "file") {
      if (part.filename === undefined) errors.push({ location: "body", pointer, message: "must be a file" });
      else {
        const name = filenameSchema.safeParse(part.filename);
        if (name.success) file = part;
        else
          errors.push(
            ...name.error.issues.map((issue) => ({ location: "body" as const, pointer, message: `file name ${issue.message}` })),
          );
      }
    } else if (part.filename !== undefined) {
      errors.push({ location: "body", pointer, message: "must be a text field" });
    } else {
      const text = decodeUtf8(part.data);
      if (text === undefined) errors.push({ location: "body", pointer, message: "must be valid UTF-8 text" });
      else fields[key] = text;
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
  if (errors.length > 0 || !parsed.success || !file) throw validationError(errors);

  if (file.data.byteLength > MAX_FILE_BYTES) throw fileTooLarge();
  const filename = file.filename!;
  const type = checkFile(file.data, filename);
  return {
    content: file.data,
    filename,
    mimeType: type.mimeType,
    documentType: parsed.data.document_type,
    description: parsed.data.description ?? null,
    expirationDate: expirationDate ?? null,
  };
}
