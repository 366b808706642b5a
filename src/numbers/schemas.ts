// Wire format of numbers and the operator's allocation body.
import { z } from "@hono/zod-openapi";
import { KYC_STATUSES, NUMBER_STATUSES, RELEASE_REASONS, SUSPENSION_REASONS } from "../db/schema.ts";
import {
  calendarDateSchema,
  countryCodeSchema,
  e164Schema,
  numberTypeSchema,
  prefixedId,
  singleLineText,
  timestampSchema,
} from "../http/fields.ts";
import { commaList, dateQuery, pageQuery, pageSchema, searchQuery, sortByQuery } from "../http/pagination.ts";
import { inOrder, whenFieldsValid } from "../http/validation.ts";
import { withPrefix } from "../lib/ids.ts";
import { endOfDay, startOfDay, toIso, toIsoOrNull } from "../lib/time.ts";
import type { Allocation } from "../orders/allocation-store.ts";
import { orderIdParam, orderSchema } from "../orders/schemas.ts";
import { NUMBER_SORT_KEYS, type NumberListQuery, type NumberWithKyc } from "./store.ts";

/** A tag: 1–64 of letters, digits, space and `_ . : -`, neither starting nor ending with a space. */
const TAG_PATTERN = /^[A-Za-z0-9_.:-]([A-Za-z0-9 _.:-]{0,62}[A-Za-z0-9_.:-])?$/;
export const MAX_TAGS = 20;
const MAX_CUSTOMER_REFERENCE_LENGTH = 100;

export const tagSchema = z
  .string()
  .regex(TAG_PATTERN, {
    error: "must be 1 to 64 letters, digits, spaces or _ . : - (ASCII), not starting or ending with a space",
  })
  .openapi({ example: "team:support" });

/** Tags compare ignoring case (they are ASCII). */
export const tagKey = (tag: string) => tag.toLowerCase();

/** A number's tags: at most MAX_TAGS, none repeated ignoring case, in the customer's order. */
export const tagListSchema = z
  .array(tagSchema)
  .max(MAX_TAGS)
  .refine((tags) => new Set(tags.map(tagKey)).size === tags.length, { error: "must not repeat a tag (ignoring case)" })
  .openapi({ description: `At most ${MAX_TAGS} tags, unique ignoring case, in the order given.`, example: ["team:support"] });

/** The customer's own reference for a number: one line of visible text. */
export const customerReferenceSchema = singleLineText()
  .min(1)
  .max(MAX_CUSTOMER_REFERENCE_LENGTH)
  .openapi({ example: "CRM-4411" });

export const numberSchema = z
  .object({
    number_id: z.uuid(),
    phone_number: z.string().openapi({ example: "+14155550123" }),
    country_code: z.string().openapi({ example: "US" }),
    number_type: z.string().openapi({ example: "mobile" }),
    status: z.enum(NUMBER_STATUSES),
    order_id: z.uuid(),
    kyc_status: z.enum(KYC_STATUSES).nullable().openapi({
      description: "Status of the number's verification (its own, or its profile's), null when none.",
    }),
    kyc_profile_id: z.string().nullable().openapi({
      description: "The profile the number joined (kyp_…), null when none.",
      example: null,
    }),
    created_at: timestampSchema,
    updated_at: timestampSchema,
    released_at: timestampSchema.nullable().openapi({ description: "When the number was released; null unless released." }),
    restorable_until: timestampSchema
      .nullable()
      .openapi({ description: "Until when a release can be undone (released_at + 10 days); null unless released." }),
    release_reason: z
      .enum(RELEASE_REASONS)
      .nullable()
      .openapi({ description: "Who released it: the customer or the operator; null unless released." }),
    suspended_at: timestampSchema
      .nullable()
      .openapi({ description: "When the operator suspended it; kept through a release, so a restore returns it suspended." }),
    suspension_reason: z.enum(SUSPENSION_REASONS).nullable(),
    release_protected: z.boolean().openapi({ description: "A protected number is never released by the customer." }),
    tags: z.array(z.string()).openapi({ description: `The customer's labels (at most ${MAX_TAGS}), in their order.` }),
    customer_reference: z.string().nullable().openapi({ description: "The customer's own reference, or null.", example: null }),
  })
  .openapi("Number");

export function toNumber({ number: row, kycStatus }: NumberWithKyc): z.infer<typeof numberSchema> {
  return {
    number_id: row.id,
    phone_number: row.phoneNumber,
    country_code: row.countryCode,
    number_type: row.numberType,
    status: row.status,
    order_id: row.orderId,
    kyc_status: kycStatus,
    kyc_profile_id: row.kycProfileId === null ? null : withPrefix("kyp", row.kycProfileId),
    created_at: toIso(row.createdAt),
    updated_at: toIso(row.updatedAt),
    released_at: toIsoOrNull(row.releasedAt),
    restorable_until: toIsoOrNull(row.restorableUntil),
    release_reason: row.releaseReason,
    suspended_at: toIsoOrNull(row.suspendedAt),
    suspension_reason: row.suspensionReason,
    release_protected: row.releaseProtected,
    tags: row.tags,
    customer_reference: row.customerReference,
  };
}

/** The list's filters and sort, which the export takes too. */
const numberFilters = {
  search: searchQuery.openapi({
    description: "Substring of the phone number (digits, with or without +).",
  }),
  status: commaList(z.enum(NUMBER_STATUSES), "status", "Number statuses."),
  country_code: commaList(countryCodeSchema, "country_code", "Country codes."),
  number_type: commaList(numberTypeSchema, "number_type", "Number types."),
  kyc_profile_id: prefixedId("kyp")
    .optional()
    .openapi({
      param: { name: "kyc_profile_id", in: "query" },
      description: "Only the numbers attached to this profile (a released number is attached to none).",
    }),
  order_id: orderIdParam
    .optional()
    .openapi({ param: { name: "order_id", in: "query" }, description: "Only the numbers allocated to this order." }),
  kyc_expires_before: calendarDateSchema.optional().openapi({
    param: { name: "kyc_expires_before", in: "query" },
    description:
      "Only the numbers, not released, whose verification (own or their profile's) expires before this date (YYYY-MM-DD, UTC).",
  }),
  tag: commaList(tagSchema, "tag", "Only the numbers that have every one of these tags (ignoring case)."),
  customer_reference: customerReferenceSchema.optional().openapi({
    param: { name: "customer_reference", in: "query" },
    description: "Only the numbers with this reference (exact).",
  }),
  released_from: dateQuery("released_from", "Released on or after this UTC day (inclusive)."),
  released_to: dateQuery("released_to", "Released on or before this UTC day (inclusive)."),
  sort_by: sortByQuery(NUMBER_SORT_KEYS, "created_at"),
  sort_order: pageQuery.sort_order,
};

/** released_from after released_to matches nothing, and is refused rather than answered empty. */
const releasedDaysInOrder: [(q: { released_from?: string; released_to?: string }) => boolean, z.core.$ZodCustomParams] = [
  (q) => inOrder(q.released_from, q.released_to),
  {
    path: ["released_from"],
    error: "must not be after the last day released",
    when: whenFieldsValid("released_from", "released_to"),
  },
];

export const listNumbersQuery = z
  .object({ page: pageQuery.page, limit: pageQuery.limit, ...numberFilters })
  .refine(...releasedDaysInOrder);

/** The export's query: the list's filters and sort, without paging. */
export const exportNumbersQuery = z.object(numberFilters).refine(...releasedDaysInOrder);

export function toNumberListQuery(q: z.infer<typeof exportNumbersQuery>): NumberListQuery {
  return {
    search: q.search,
    statuses: q.status,
    countryCodes: q.country_code,
    numberTypes: q.number_type,
    kycProfileId: q.kyc_profile_id,
    orderId: q.order_id,
    kycExpiresBefore: q.kyc_expires_before === undefined ? undefined : startOfDay(q.kyc_expires_before),
    tagKeys: q.tag && [...new Set(q.tag.map(tagKey))],
    customerReference: q.customer_reference,
    releasedFrom: q.released_from === undefined ? undefined : startOfDay(q.released_from),
    releasedTo: q.released_to === undefined ? undefined : endOfDay(q.released_to),
    sortBy: q.sort_by,
    sortOrder: q.sort_order,
  };
}

export const numberPageSchema = pageSchema(numberSchema, "Number");

/** An allocation: the order after it and the numbers it added, by phone number. */
export const allocationSchema = z.object({ order: orderSchema, numbers: z.array(numberSchema) }).openapi("Allocation");

/** The most numbers one allocation lists; from stock it may take as many as an order holds. */
const MAX_LISTED = 1000;
const MAX_FROM_STOCK = 10_000;

export const allocationBody = z
  .strictObject({
    phone_numbers: z
      .array(e164Schema)
      .min(1)
      .max(MAX_LISTED)
      .refine((list) => new Set(list).size === list.length, {
        error: "must not repeat a phone number",
      })
      .optional()
      .openapi({ description: `These numbers (1 to ${MAX_LISTED}).` }),
    from_stock: z.int().min(1).max(MAX_FROM_STOCK).optional().openapi({
      description:
        "Instead: this many available numbers in stock for the order's country and type (oldest available_at, then import time, then number).",
      example: 100,
    }),
    ignore_quarantine: z
      .boolean()
      .optional()
      .openapi({
        description:
          "Admin only: with phone_numbers, allocate listed numbers that are quarantined in stock too (audited as " +
          "stock.quarantine_overridden). Without it such a number is a 409 number_quarantined.",
      }),
  })
  .superRefine((body, ctx) => {
    if (body.ignore_quarantine !== undefined && body.phone_numbers === undefined) {
      ctx.addIssue({ code: "custom", path: ["ignore_quarantine"], message: "must be given with phone_numbers only" });
    }
    const given = [body.phone_numbers, body.from_stock].filter((part) => part !== undefined).length;
    if (given !== 1) {
      ctx.addIssue({
        code: "custom",
        path: given === 0 ? [] : ["from_stock"],
        message: given === 0 ? "must have phone_numbers or from_stock" : "must not be given beside phone_numbers",
      });
    }
  })
  .openapi("NumberAllocation");

/** The store's allocation of a valid body: the listed numbers, or a count from stock. */
export function toAllocation(body: z.infer<typeof allocationBody>): Allocation {
  return body.from_stock !== undefined
    ? { fromStock: body.from_stock }
    : { phoneNumbers: body.phone_numbers ?? [], ignoreQuarantine: body.ignore_quarantine === true };
}
