// Field schemas shared by several wire formats.
import { z } from "@hono/zod-openapi";
import { isAssignedCountryCode } from "../lib/countries.ts";
import type { IdPrefix } from "../lib/ids.ts";

/** C0 control characters (U+0000-U+001F): NUL and the rest. */
function hasControlCharacter(value: string, allowLineBreaks: boolean): boolean {
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code >= 0x20) continue;
    if (allowLineBreaks && (code === 0x09 || code === 0x0a || code === 0x0d)) continue;
    return true;
  }
  return false;
}

/**
 * Invisible format characters (Unicode category Cf): zero-width spaces and joiners, the bidirectional marks, embeddings,
 * overrides and isolates, the soft hyphen, the byte order mark. Nothing shows them, so "ad\u200bmin" would pose as
 * "admin", and the bidirectional ones make text display in another order than it is stored ("cod.exe" as "exe.doc").
 */
const FORMAT_CHARACTER = /\p{Cf}/u;

/** The first invisible format character in text (FORMAT_CHARACTER), written U+XXXX, or undefined when there is none. */
export function formatCharacterIn(value: string): string | undefined {
  const found = FORMAT_CHARACTER.exec(value)?.[0];
  return found === undefined ? undefined : `U+${found.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`;
}

/** Why text with an invisible format character is refused, naming the one found. */
export function formatCharacterMessage(found: string): string {
  return `must not contain invisible format characters such as zero-width spaces, joiners or direction marks (found ${found})`;
}

/** The text rules every text field shares: valid Unicode, no control characters (tab, CR, LF where allowed). */
function text(allowLineBreaks: boolean) {
  return z
    .string()
    .refine((value) => value.isWellFormed(), { error: "must be valid Unicode text (no unpaired surrogates)", abort: true })
    .superRefine((value, ctx) => {
      const invisible = formatCharacterIn(value);
      if (hasControlCharacter(value, allowLineBreaks)) {
        const message = allowLineBreaks
          ? "must not contain control characters other than tab, CR and LF"
          : "must not contain control characters";
        ctx.addIssue({ code: "custom", message, input: value });
      } else if (invisible !== undefined) {
        ctx.addIssue({ code: "custom", message: formatCharacterMessage(invisible), input: value });
      }
    });
}

/**
 * Text that goes on one line (names, address fields, search terms): no C0 control character, not even a tab or a line
 * break, no invisible format character, and no lone surrogate (which has no UTF-8 form). Checked before any trimming, so
 * nothing is silently dropped.
 */
export function singleLineText() {
  return text(false);
}

/** Free text (notes, descriptions): as singleLineText, but tab, CR and LF are allowed. */
export function multiLineText() {
  return text(true);
}

/** A timestamp on the wire: ISO 8601 UTC with milliseconds. */
export const timestampSchema = z.string().openapi({ format: "date-time", example: "2026-11-21T09:30:00.000Z" });

/** A real calendar date written YYYY-MM-DD (2026-02-30 is not one). */
export const calendarDateSchema = z.iso.date({ error: "must be a calendar date YYYY-MM-DD" }).openapi({ example: "2026-11-01" });

export const countryCodeSchema = z
  .string()
  .regex(/^[A-Z]{2}$/, {
    error: "must be 2 uppercase letters (ISO 3166-1 alpha-2)",
  })
  .openapi({ description: "ISO 3166-1 alpha-2 country code.", example: "US" });

/** A country the stock can hold numbers of: 2 uppercase letters that ISO 3166-1 assigns to a country (not XX, ZZ). */
export const assignedCountryCodeSchema = z
  .string()
  .regex(/^[A-Z]{2}$/, { error: "must be 2 uppercase letters (ISO 3166-1 alpha-2)", abort: true })
  .refine(isAssignedCountryCode, { error: "must be a country code that ISO 3166-1 assigns, such as US or GB" })
  .openapi({ description: "An assigned ISO 3166-1 alpha-2 country code.", example: "US" });

/** A number type as the catalog names one: a lowercase identifier (mobile, toll_free). */
export const numberTypeIdentifierSchema = z
  .string()
  .regex(/^[a-z][a-z0-9_]{0,49}$/, {
    error: "must be a lowercase identifier of 1-50 characters, e.g. toll_free",
  })
  .openapi({ example: "mobile" });

export const numberTypeSchema = singleLineText().min(1).max(50).openapi({
  description: "Kind of numbers, a lowercase identifier such as mobile, landline or toll_free.",
  example: "mobile",
});

/** E.164: a plus sign and 7 to 15 digits, the first not zero. */
export const e164Schema = z
  .e164({ error: "must be an E.164 phone number such as +14155550123" })
  .openapi({ example: "+14155550123" });

/** JSON's integer grammar without a sign: what `Number()` would also take ("0x10", "1e3", "+1", " 1", "007") is not it. */
const DECIMAL_DIGITS = /^(?:0|[1-9][0-9]*)$/;

/**
 * An integer in a query string or path, `min` to `max` (at most Number.MAX_SAFE_INTEGER): decimal digits without sign
 * or leading zeros. A value past `max` is refused however long it is, never rounded; one issue per bad value.
 */
export function integerParam({ min, max }: { min: number; max?: number }) {
  const upper = max ?? Number.MAX_SAFE_INTEGER;
  return z
    .string()
    .transform((text, ctx) => {
      if (!DECIMAL_DIGITS.test(text)) {
        ctx.addIssue({ code: "custom", message: "must be a whole number in decimal digits, without sign or leading zeros" });
        return z.NEVER;
      }
      // Past 2^53 - 1 Number() rounds, but never down to 2^53 - 1 or less, so the comparison stays exact.
      const value = Number(text);
      if (value > upper) {
        ctx.addIssue({ code: "too_big", origin: "number", maximum: upper, inclusive: true, input: text });
        return z.NEVER;
      }
      if (value < min) {
        ctx.addIssue({ code: "too_small", origin: "number", minimum: min, inclusive: true, input: text });
        return z.NEVER;
      }
      return value;
    })
    .openapi({ type: "integer", minimum: min, ...(max === undefined ? {} : { maximum: max }) });
}

/** A path parameter holding a bare uuid; ids are stored lowercase, so the value is lowercased. */
export function uuidParam(name: string) {
  return z
    .uuid({ error: "must be a valid UUID" })
    .transform((value) => value.toLowerCase())
    .openapi({
      param: { name, in: "path" },
      type: "string",
      format: "uuid",
      example: "0b7e8f5e-4a8e-4b8c-9a51-3f1f7f9c2d11",
    });
}

/** An id taking `<prefix>_<uuid>` or the bare uuid; the handler receives the bare, lowercased uuid. */
export function prefixedId(prefix: IdPrefix) {
  const bareUuid = z.uuid();
  return z
    .string()
    .transform((value, ctx) => {
      const bare = value.startsWith(`${prefix}_`) ? value.slice(prefix.length + 1) : value;
      if (!bareUuid.safeParse(bare).success) {
        ctx.addIssue({
          code: "custom",
          message: `must be a ${prefix}_<uuid> identifier or a UUID`,
        });
        return z.NEVER;
      }
      return bare.toLowerCase();
    })
    .openapi({
      type: "string",
      description: `${prefix}_<uuid>, or the bare uuid.`,
      example: `${prefix}_3f1f7f9c-2d11-4b8c-9a51-0b7e8f5e4a8e`,
    });
}

/** A path parameter taking `<prefix>_<uuid>` or the bare uuid; the handler receives the bare, lowercased uuid. */
export function prefixedIdParam(prefix: IdPrefix, name: string) {
  return prefixedId(prefix).openapi({ param: { name, in: "path" } });
}

/**
 * A refinement of a body that selects numbers by ids or by order: exactly one of the two (named at its field when both
 * are given).
 */
export function oneSelection(body: { number_ids?: unknown; order_id?: unknown }, ctx: z.RefinementCtx): void {
  const given = [body.number_ids, body.order_id].filter((part) => part !== undefined).length;
  if (given !== 1) {
    ctx.addIssue({
      code: "custom",
      path: given === 0 ? [] : ["order_id"],
      message: given === 0 ? "must have number_ids or order_id" : "must not be given beside number_ids",
    });
  }
}
