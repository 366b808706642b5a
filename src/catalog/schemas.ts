// Wire format of the orderable catalog and each pair's requirements (COMPLIANCE.md).
import { z } from "@hono/zod-openapi";
import { REQUIREMENT_KEY_PATTERN } from "../compliance/types.ts";
import { customerSlugParam } from "../customers/schemas.ts";
import {
  type CatalogRow,
  DOCUMENT_TYPES,
  KYC_TYPES,
  MAX_QUARANTINE_DAYS,
  REQUIREMENT_FIELDS,
  type Requirements,
} from "../db/schema.ts";
import {
  assignedCountryCodeSchema,
  countryCodeSchema,
  numberTypeIdentifierSchema,
  numberTypeSchema,
  singleLineText,
  timestampSchema,
} from "../http/fields.ts";
import { commaList, pageQuery, pageSchema } from "../http/pagination.ts";
import { toIso } from "../lib/time.ts";
import type { CatalogItem, SettingsChange } from "./store.ts";

/** Most document requirements one pair may have. */
const MAX_DOCUMENT_REQUIREMENTS = 20;

/** Each item that repeats an earlier one is an issue at its own index. */
function noRepeats(items: readonly unknown[], ctx: z.RefinementCtx<readonly unknown[]>): void {
  items.forEach((item, index) => {
    if (items.indexOf(item) !== index) {
      ctx.addIssue({ code: "custom", path: [index], message: `must not repeat ${String(item)}`, input: item });
    }
  });
}

const kycTypesBody = z
  .array(z.enum(KYC_TYPES))
  .min(1, { error: "must name at least one verification type" })
  .max(KYC_TYPES.length)
  .superRefine(noRepeats);
const fieldsBody = z.array(z.enum(REQUIREMENT_FIELDS)).max(REQUIREMENT_FIELDS.length).superRefine(noRepeats).default([]);

const documentRequirementBody = z.strictObject({
  key: z
    .string()
    .regex(REQUIREMENT_KEY_PATTERN, {
      error: "must be a lowercase identifier of 1-40 characters (letters, digits, _), starting with a letter",
    })
    .openapi({ description: "Names the requirement; unique in the set.", example: "proof_of_address" }),
  document_types: z
    .array(z.enum(DOCUMENT_TYPES))
    .min(1, { error: "must name at least one document type" })
    .max(DOCUMENT_TYPES.length)
    .superRefine(noRepeats)
    .openapi({ description: "A document of any of these types meets the requirement." }),
  applies_to: kycTypesBody.openapi({ description: "The verification types that must hold such a document." }),
  description: singleLineText().trim().min(1).max(500).openapi({
    description: "What the document must show, in words for the customer.",
    example: "A utility bill under 3 months old",
  }),
});

/** The operator's PUT of a pair's requirements: the whole set, replacing the one before. */
export const requirementsBody = z
  .strictObject({
    verification_types: kycTypesBody.openapi({ description: "The verification types accepted for a number of the pair." }),
    address_in_country: z.boolean().openapi({ description: "The verification's address must be in the pair's country." }),
    fields: z
      .strictObject({ individual: fieldsBody, business: fieldsBody })
      .openapi({ description: "Fields each verification type must fill, beyond the always-required address." }),
    documents: z
      .array(documentRequirementBody)
      .max(MAX_DOCUMENT_REQUIREMENTS)
      .superRefine((documents, ctx) => {
        const keys = documents.map((document) => document.key);
        keys.forEach((key, index) => {
          if (keys.indexOf(key) !== index) {
            ctx.addIssue({
              code: "custom",
              path: [index, "key"],
              message: `must be unique in the set (${key} repeats)`,
              input: key,
            });
          }
        });
      })
      .openapi({ description: `Documents a verification must hold, at most ${MAX_DOCUMENT_REQUIREMENTS}.` }),
  })
  .openapi("CatalogRequirements");

/** The requirements a valid body states, in the stored form (keys in one order, so an unchanged set compares equal). */
export function toRequirements(body: z.output<typeof requirementsBody>): Requirements {
  return {
    verification_types: body.verification_types,
    address_in_country: body.address_in_country,
    fields: { individual: body.fields.individual, business: body.fields.business },
    documents: body.documents.map((document) => ({
      key: document.key,
      document_types: document.document_types,
      applies_to: document.applies_to,
      description: document.description,
    })),
  };
}

const requirementsSchema = z
  .object({
    verification_types: z.array(z.enum(KYC_TYPES)),
    address_in_country: z.boolean(),
    fields: z.object({
      individual: z.array(z.enum(REQUIREMENT_FIELDS)),
      business: z.array(z.enum(REQUIREMENT_FIELDS)),
    }),
    documents: z.array(
      z.object({
        key: z.string().openapi({ example: "proof_of_address" }),
        document_types: z.array(z.enum(DOCUMENT_TYPES)),
        applies_to: z.array(z.enum(KYC_TYPES)),
        description: z.string(),
      }),
    ),
  })
  .openapi("Requirements");

const kycRequiredField = z
  .boolean()
  .openapi({ description: "Whether a number of the pair needs a verification: it has requirements." });
const requirementsField = requirementsSchema.nullable().openapi({ description: "What a verification must hold; null: none." });

/** A pair with what a verification for a number of it must hold: the answer to a change of its requirements. */
export const pairRequirementsSchema = z
  .object({
    country_code: z.string().openapi({ example: "DE" }),
    number_type: z.string().openapi({ example: "mobile" }),
    kyc_required: kycRequiredField,
    requirements: requirementsField,
  })
  .openapi("CatalogPairRequirements");

export function toPairRequirements(
  row: Pick<CatalogRow, "countryCode" | "numberType" | "requirements">,
): z.infer<typeof pairRequirementsSchema> {
  // Stored as the API shows them (toRequirements writes both field lists).
  const requirements = row.requirements ?? null;
  return {
    country_code: row.countryCode,
    number_type: row.numberType,
    kyc_required: requirements !== null,
    requirements,
  };
}

/** Available numbers in stock from which a pair's availability is plenty; fewer (but some) is limited. */
const PLENTY_AVAILABLE = 100;
const AVAILABILITIES = ["plenty", "limited", "none"] as const;
type Availability = (typeof AVAILABILITIES)[number];

/** How many numbers of a pair an order may expect at once, from its available stock (not the count itself). */
function availabilityOf(available: number): Availability {
  if (available >= PLENTY_AVAILABLE) return "plenty";
  return available > 0 ? "limited" : "none";
}

const autoFulfilField = z
  .boolean()
  .openapi({ description: "Whether the operator means orders of the pair to be fulfilled from stock at once." });

/** An orderable pair as a customer sees it: its requirements, and how well stocked it is. */
export const catalogEntrySchema = pairRequirementsSchema
  .extend({
    auto_fulfil: autoFulfilField,
    availability: z.enum(AVAILABILITIES).openapi({
      description: `Numbers available in stock for the pair: plenty (${PLENTY_AVAILABLE} or more), limited (1 to ${PLENTY_AVAILABLE - 1}) or none.`,
    }),
  })
  .openapi("CatalogEntry");

export function toCatalogEntry(row: CatalogItem): z.infer<typeof catalogEntrySchema> {
  return { ...toPairRequirements(row), auto_fulfil: row.autoFulfil, availability: availabilityOf(row.available) };
}

const quarantineDaysField = z
  .int()
  .min(0)
  .max(MAX_QUARANTINE_DAYS)
  .openapi({
    description:
      "Days a released number waits in stock, counted from its release (at least until its restore window ends), " +
      "before an allocation may take it again.",
    example: 90,
  });

/** The settings a PUT of a pair names: only those are set. */
export const catalogSettingsBody = z
  .strictObject({ quarantine_days: quarantineDaysField.optional(), auto_fulfil: autoFulfilField.optional() })
  .refine((body) => body.quarantine_days !== undefined || body.auto_fulfil !== undefined, {
    error: "must name quarantine_days or auto_fulfil",
  })
  .openapi("CatalogPairSettings");

export function toSettingsChange(body: Partial<z.output<typeof catalogSettingsBody>>): SettingsChange {
  return { quarantineDays: body.quarantine_days, autoFulfil: body.auto_fulfil };
}

export const catalogPairSchema = z
  .object({
    country_code: z.string(),
    number_type: z.string(),
    quarantine_days: quarantineDaysField,
    auto_fulfil: autoFulfilField,
    created_at: timestampSchema,
    kyc_required: kycRequiredField,
    requirements: requirementsField,
  })
  .openapi("CatalogPair");

export function toCatalogPair(row: CatalogItem): z.infer<typeof catalogPairSchema> {
  return {
    ...toPairRequirements(row),
    quarantine_days: row.quarantineDays,
    auto_fulfil: row.autoFulfil,
    created_at: toIso(row.createdAt),
  };
}

export const catalogPairParams = z.object({
  country_code: countryCodeSchema.openapi({
    param: { name: "country_code", in: "path" },
  }),
  number_type: numberTypeIdentifierSchema.openapi({
    param: { name: "number_type", in: "path" },
  }),
});

/**
 * The path of a pair being made orderable: its country one ISO 3166-1 assigns, as the stock's (a pair of XX could never
 * be stocked). The other operations take any two letters, so a pair added before this rule can still be removed.
 */
export const newCatalogPairParams = catalogPairParams.extend({
  country_code: assignedCountryCodeSchema.openapi({
    param: { name: "country_code", in: "path" },
  }),
});

/** A customer's path to one pair. */
export const customerCatalogPairParams = catalogPairParams.extend({ customer_slug: customerSlugParam });

export const removedCatalogPairSchema = z
  .object({
    country_code: z.string(),
    number_type: z.string(),
    orderable: z.literal(false),
  })
  .openapi("RemovedCatalogPair");

export const catalogPageSchema = pageSchema(catalogPairSchema, "CatalogPair");

/** A customer's list of the orderable pairs: a page, filtered by country and type. */
export const catalogEntriesQuery = z.object({
  page: pageQuery.page,
  limit: pageQuery.limit,
  country_code: commaList(countryCodeSchema, "country_code", "Country codes."),
  number_type: commaList(numberTypeSchema, "number_type", "Number types."),
});

export const catalogEntryPageSchema = pageSchema(catalogEntrySchema, "CatalogEntry");
