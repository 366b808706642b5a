// Wire format of customer accounts and their API keys.
import { z } from "@hono/zod-openapi";
import type { ApiKeyRow, CustomerRow } from "../db/schema.ts";
import { singleLineText, timestampSchema } from "../http/fields.ts";
import { pageSchema } from "../http/pagination.ts";
import { toIso, toIsoOrNull } from "../lib/time.ts";

const slugSchema = z
  .string()
  .regex(/^[a-z0-9](?:[a-z0-9-]{1,38}[a-z0-9])$/, {
    error: "must be 3-40 lowercase letters, digits or hyphens, starting and ending with a letter or digit",
  })
  .openapi({ example: "acme-telecom" });

/** The `{customer_slug}` of every customer route: the key's own account (any other answers 404). */
export const customerSlugParam = z.string().openapi({
  param: { name: "customer_slug", in: "path" },
  description: "Your account's slug.",
  example: "demo",
});

/** An operator's list filtered to one account, by its slug. */
export const customerSlugFilter = z
  .string()
  .min(1)
  .max(40)
  .optional()
  .openapi({ param: { name: "customer_slug", in: "query" }, description: "Only this account's.", example: "demo" });

/** The `{slug}` of the operator's routes, which may name any account. */
export const slugParams = z.object({
  slug: slugSchema.openapi({ param: { name: "slug", in: "path" } }),
});

/** The longest name of an account or an API key, in characters. */
export const MAX_NAME_LENGTH = 200;
const displayName = singleLineText().trim().min(1).max(MAX_NAME_LENGTH);

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
  .strictObject({
    slug: slugSchema,
    name: displayName.openapi({ example: "Acme Telecom" }),
  })
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
    key: z.string().openapi({
      description: "The key itself. Shown only in this response; store it now.",
    }),
    prefix: z.string(),
    created_at: timestampSchema,
  })
  .openapi("CreatedApiKey");

export function toCreatedApiKey(row: ApiKeyRow, key: string): z.infer<typeof createdApiKeySchema> {
  return {
    id: row.id,
    name: row.name,
    key,
    prefix: row.prefix,
    created_at: toIso(row.createdAt),
  };
}

export const createApiKeyBody = z.strictObject({ name: displayName.openapi({ example: "production" }) }).openapi("CreateApiKey");

export const customerPageSchema = pageSchema(customerSchema, "Customer");
export const apiKeyPageSchema = pageSchema(apiKeySchema, "ApiKey");
