// Public identifiers: a resource's uuid, shown with its type prefix (num_, kyc_, doc_); paths accept both forms.
import { z } from "@hono/zod-openapi";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

export type IdPrefix = "num" | "kyc" | "doc";

export function withPrefix(prefix: IdPrefix, id: string): string {
  return `${prefix}_${id}`;
}

/** A path parameter taking `<prefix>_<uuid>` or the bare uuid; the handler receives the bare, lowercased uuid. */
export function prefixedIdParam(prefix: IdPrefix, name: string) {
  return z
    .string()
    .transform((value, ctx) => {
      const bare = value.startsWith(`${prefix}_`) ? value.slice(prefix.length + 1) : value;
      if (!UUID.test(bare)) {
        ctx.addIssue({ code: "custom", message: `must be a ${prefix}_<uuid> identifier or a UUID` });
        return z.NEVER;
      }
      return bare.toLowerCase();
    })
    .openapi({
      param: { name, in: "path" },
      type: "string",
      description: `${prefix}_<uuid>, or the bare uuid.`,
      example: `${prefix}_3f1f7f9c-2d11-4b8c-9a51-0b7e8f5e4a8e`,
    });
}

/** A path parameter holding a bare uuid; ids are stored lowercase, so the value is lowercased. */
export function uuidParam(name: string) {
  return z
    .string()
    .regex(UUID, { error: "must be a valid UUID" })
    .transform((value) => value.toLowerCase())
    .openapi({ param: { name, in: "path" }, type: "string", format: "uuid", example: "0b7e8f5e-4a8e-4b8c-9a51-3f1f7f9c2d11" });
}

/** E.164: a plus sign and up to 15 digits, the first not zero. */
export const e164Schema = z
  .string()
  .regex(/^\+[1-9]\d{1,14}$/, { error: "must be an E.164 phone number such as +14155550123" })
  .openapi({ example: "+14155550123" });
