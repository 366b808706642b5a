// Wire format of staff members.
import { z } from "@hono/zod-openapi";
import { STAFF_ROLES, STAFF_STATUSES, type StaffRow } from "../db/schema.ts";
import { singleLineText, timestampSchema } from "../http/fields.ts";
import { pageSchema } from "../http/pagination.ts";
import { toIso } from "../lib/time.ts";

export const staffSchema = z
  .object({
    email: z.string().openapi({ example: "ada@operator.example" }),
    name: z.string().openapi({ example: "Ada Lovelace" }),
    role: z.enum(STAFF_ROLES),
    status: z.enum(STAFF_STATUSES),
    created_at: timestampSchema,
    updated_at: timestampSchema,
  })
  .openapi("StaffMember");

export const staffPageSchema = pageSchema(staffSchema, "Staff");

export function toStaff(row: StaffRow): z.infer<typeof staffSchema> {
  return {
    email: row.email,
    name: row.name,
    role: row.role,
    status: row.status,
    created_at: toIso(row.createdAt),
    updated_at: toIso(row.updatedAt),
  };
}

/** The `{email}` of a staff member: the e-mail their Cloudflare Access identity carries, in any case. */
export const staffEmailParams = z.object({
  email: z
    .email({ error: "must be an e-mail address" })
    .max(254)
    .transform((email) => email.toLowerCase())
    .openapi({ param: { name: "email", in: "path" }, example: "ada@operator.example" }),
});

export const putStaffBody = z
  .strictObject({
    name: singleLineText().trim().min(1).max(200).openapi({ example: "Ada Lovelace" }),
    role: z.enum(STAFF_ROLES),
    status: z.enum(STAFF_STATUSES).default("enabled"),
  })
  .openapi("StaffSettings");
