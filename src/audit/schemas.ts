// Wire format of the audit log; a customer sees the operator's staff only as "operator".
import { z } from "@hono/zod-openapi";
import { customerSlugFilter } from "../customers/schemas.ts";
import { AUDIT_ACTIONS, AUDIT_TARGET_TYPES } from "../db/audit.ts";
import { ACTOR_TYPES } from "../db/schema.ts";
import { timestampSchema } from "../http/fields.ts";
import { commaList, dateQuery, pageQuery, pageSchema } from "../http/pagination.ts";
import { whenFieldsValid } from "../http/validation.ts";
import { endOfDay, startOfDay, toIso } from "../lib/time.ts";
import type { AuditEventWithSlug, AuditListQuery } from "./store.ts";

const actorSchema = z
  .object({
    type: z.enum([...ACTOR_TYPES, "operator"]).openapi({
      description:
        "staff (a person of the operator's, by e-mail), token (the ADMIN_TOKEN), user (a portal user), api_key; a " +
        "customer sees staff and token both as operator.",
    }),
    email: z.string().optional(),
    id: z.string().optional(),
  })
  .openapi("AuditActor");

export const auditEventSchema = z
  .object({
    id: z.string().openapi({ example: "aud_9b0c5d1e-…" }),
    actor: actorSchema,
    action: z.enum(AUDIT_ACTIONS),
    target: z.object({ type: z.enum(AUDIT_TARGET_TYPES), id: z.string() }),
    customer_slug: z.string().optional(),
    changes: z.record(z.string(), z.tuple([z.unknown(), z.unknown()])).openapi({
      description: "Each changed field with its value before and after (null where there was or is none); never a secret.",
    }),
    request_id: z.string(),
    created_at: timestampSchema,
  })
  .openapi("AuditEvent");

export const auditEventPageSchema = pageSchema(auditEventSchema, "AuditEvent");

const auditFilters = {
  page: pageQuery.page,
  limit: pageQuery.limit,
  action: commaList(z.enum(AUDIT_ACTIONS), "action", "Actions."),
  target_type: z
    .enum(AUDIT_TARGET_TYPES)
    .optional()
    .openapi({ param: { name: "target_type", in: "query" }, description: "What the change is about." }),
  target_id: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .openapi({ param: { name: "target_id", in: "query" }, description: "Its id, as the API writes it (kyc_…, we_…)." }),
  from: dateQuery("from", "On or after this UTC day (inclusive)."),
  to: dateQuery("to", "On or before this UTC day (inclusive)."),
};

/** from after to matches nothing, and is refused rather than answered empty. */
const datesInOrder: [(q: { from?: string; to?: string }) => boolean, z.core.$ZodCustomParams] = [
  (q) => q.from === undefined || q.to === undefined || q.from <= q.to,
  { path: ["from"], error: "must not be after the last day", when: whenFieldsValid("from", "to") },
];

export const customerAuditQuery = z.object(auditFilters).refine(...datesInOrder);

export const operatorAuditQuery = z
  .object({
    ...auditFilters,
    actor: z
      .string()
      .min(1)
      .max(254)
      .optional()
      .openapi({
        param: { name: "actor", in: "query" },
        description: "A staff member's or user's e-mail (any case), or token for the ADMIN_TOKEN.",
      }),
    customer_slug: customerSlugFilter,
  })
  .refine(...datesInOrder);

export function toAuditListQuery(q: z.infer<typeof operatorAuditQuery> | z.infer<typeof customerAuditQuery>): AuditListQuery {
  return {
    actor: "actor" in q ? q.actor : undefined,
    customerSlug: "customer_slug" in q ? q.customer_slug : undefined,
    actions: q.action,
    targetType: q.target_type,
    targetId: q.target_id,
    from: q.from === undefined ? undefined : startOfDay(q.from),
    to: q.to === undefined ? undefined : endOfDay(q.to),
  };
}

/** An audit event; for a customer (`forCustomer`), the operator's people and token are one "operator". */
export function toAuditEvent(row: AuditEventWithSlug, forCustomer = false): z.infer<typeof auditEventSchema> {
  const operator = row.actorType === "staff" || row.actorType === "token";
  const actor =
    forCustomer && operator
      ? { type: "operator" as const }
      : {
          type: row.actorType,
          ...(row.actorEmail === null ? {} : { email: row.actorEmail }),
          ...(row.actorId === null ? {} : { id: row.actorId }),
        };
  return {
    id: `aud_${row.id}`,
    actor,
    action: row.action as z.infer<typeof auditEventSchema>["action"],
    target: { type: row.targetType as z.infer<typeof auditEventSchema>["target"]["type"], id: row.targetId },
    ...(row.customerSlug === null ? {} : { customer_slug: row.customerSlug }),
    changes: JSON.parse(row.changes) as Record<string, [unknown, unknown]>,
    request_id: row.requestId,
    created_at: toIso(row.createdAt),
  };
}
