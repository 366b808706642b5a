// Wire format of the orderable catalog: a (country_code, number_type) pair.
import { z } from "@hono/zod-openapi";
import type { CatalogRow } from "../db/schema.ts";
import { countryCodeSchema, timestampSchema } from "../http/fields.ts";
import { pageSchema } from "../http/pagination.ts";
import { toIso } from "../lib/time.ts";

const numberTypeIdentifier = z
  .string()
  .regex(/^[a-z][a-z0-9_]{0,49}$/, {
    error: "must be a lowercase identifier of 1-50 characters, e.g. toll_free",
  })
  .openapi({ example: "mobile" });

export const catalogPairSchema = z
  .object({
    country_code: z.string(),
    number_type: z.string(),
    created_at: timestampSchema,
  })
  .openapi("CatalogPair");

export function toCatalogPair(row: CatalogRow): z.infer<typeof catalogPairSchema> {
  return {
    country_code: row.countryCode,
    number_type: row.numberType,
    created_at: toIso(row.createdAt),
  };
}

export const catalogPairParams = z.object({
  country_code: countryCodeSchema.openapi({
    param: { name: "country_code", in: "path" },
  }),
  number_type: numberTypeIdentifier.openapi({
    param: { name: "number_type", in: "path" },
  }),
});

export const removedCatalogPairSchema = z
  .object({
    country_code: z.string(),
    number_type: z.string(),
    orderable: z.literal(false),
  })
  .openapi("RemovedCatalogPair");

export const catalogPageSchema = pageSchema(catalogPairSchema, "CatalogPair");
