// Reading and checking a KYC file upload: a bounded multipart body, its fields, and the file judged by its bytes.
import { singleLineText } from "../http/fields.ts";
import { formParts } from "../http/multipart.ts";
import { fileTooLarge, MAX_FILE_BYTES } from "../http/request-body.ts";
import { issuesToFieldErrors } from "../http/validation.ts";
import { decodeUtf8 } from "../lib/content.ts";
import type { FormPart } from "../lib/multipart.ts";
import { type FieldError, refusals, validationError } from "../lib/problem.ts";
import { todayUtc } from "../lib/time.ts";
import type { CheckedFile } from "./documents.ts";
import { checkFile } from "./file-checks.ts";
import { uploadFields } from "./schemas.ts";

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

/** The problems readUpload throws: a bad form, a file too large, not a file it takes, a scan under the minimum DPI. */
export const UPLOAD_FILE_REFUSALS = refusals(
  "validation_error",
  "payload_too_large",
  "unsupported_media_type",
  "resolution_too_low",
);

/** Parses and checks an upload; throws the problem for the first rule it breaks (all field errors at once). */
export async function readUpload(request: Request, now: number, form: UploadForm = "api"): Promise<CheckedFile> {
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
