// Wire format of the operator's admin API: customers, API keys, catalog pairs, order status moves.
import { z } from "@hono/zod-openapi";
import { timestampSchema } from "../http/openapi.ts";
import type { ApiKeyRow, CatalogRow, CustomerRow } from "../db/schema.ts";
import { pageSchema } from "../http/pagination.ts";
import { toIso, toIsoOrNull } from "../lib/time.ts";
import { countryCodeSchema, orderStatusSchema } from "../orders/schemas.ts";

export const slugSchema = z
  .string()
  .regex(/^[a-z0-9](?:[a-z0-9-]{1,38}[a-z0-9])$/, {
    error: "must be 3-40 lowercase letters, digits or hyphens, starting and ending with a letter or digit",
  })
  .openapi({ example: "acme-telecom" });

const displayName = z.string().trim().min(1).max(200);

export const customerSchema = z
  .object({
    customer_id: z.uuid(),
    slug: z.string(),
    name: z.string(),
    created_at: timestampSchema,
    updated_at: timestampSchema,
  })
  .openapi("Customer");

export function toCustomer(row: CustomerRow): z.infer<typeof customerSchema> {
  return {
    customer_id: row.id,
    slug: row.slug,
    name: row.name,
    created_at: toIso(row.createdAt),
    updated_at: toIso(row.updatedAt),
  };
}

export const createCustomerBody = z
  .strictObject({ slug: slugSchema, name: displayName.openapi({ example: "Acme Telecom" }) })
  .openapi("CreateCustomer");

export const apiKeySchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    prefix: z.string().openapi({ example: "vnk_3xYq" }),
    last_four: z.string().openapi({ example: "a9Zk" }),
    created_at: timestampSchema,
    last_used_at: timestampSchema.nullable(),
    revoked_at: timestampSchema.nullable(),
  })
  .openapi("ApiKey");

export function toApiKey(row: ApiKeyRow): z.infer<typeof apiKeySchema> {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    last_four: row.lastFour,
    created_at: toIso(row.createdAt),
    last_used_at: toIsoOrNull(row.lastUsedAt),
    revoked_at: toIsoOrNull(row.revokedAt),
  };
}

export const createdApiKeySchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    key: z.string().openapi({ description: "The key itself. Shown only in this response; store it now." }),
    prefix: z.string(),
    created_at: timestampSchema,
  })
  .openapi("CreatedApiKey");

export const createApiKeyBody = z
  .strictObject({ name: displayName.openapi({ example: "production" }) })
  .openapi("CreateApiKey");

export const numberTypeIdentifier = z
  .string()
  .regex(/^[a-z][a-z0-9_]{0,49}$/, { error: "must be a lowercase identifier of 1-50 characters, e.g. toll_free" })
  .openapi({ example: "mobile" });

export const catalogPairSchema = z
  .object({ country_code: z.string(), number_type: z.string(), created_at: timestampSchema })
  .openapi("CatalogPair");

export function toCatalogPair(row: CatalogRow): z.infer<typeof catalogPairSchema> {
  return { country_code: row.countryCode, number_type: row.numberType, created_at: toIso(row.createdAt) };
}

export const catalogPairParams = z.object({
  country_code: countryCodeSchema.openapi({ param: { name: "country_code", in: "path" } }),
  number_type: numberTypeIdentifier.openapi({ param: { name: "number_type", in: "path" } }),
});

export const orderStatusBody = z
  .strictObject({ status: orderStatusSchema.openapi({ description: "processing or cancelled." }) })
  .openapi("OrderStatusChange");

export const customerPageSchema = pageSchema(customerSchema, "Customer");
export const apiKeyPageSchema = pageSchema(apiKeySchema, "ApiKey");
export const catalogPageSchema = pageSchema(catalogPairSchema, "CatalogPair");
