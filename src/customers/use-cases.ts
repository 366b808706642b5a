// Actions on accounts and API keys, shared by the operator's routes and the portal's API keys page.
import type { ApiKeyRow, CustomerRow } from "../db/schema.ts";
import type { Work } from "../env.ts";
import { done, notFound, Problem, type Result, refusals, refused } from "../lib/problem.ts";
import { ADMIN, operatorAction } from "../staff/roles.ts";
import { createApiKey, createCustomer, type NewCustomer, revokeApiKey } from "./store.ts";

const OPEN_ACCOUNT_REFUSALS = refusals("conflict");

async function openAccount(work: Work, customer: NewCustomer): Promise<Result<CustomerRow, typeof OPEN_ACCOUNT_REFUSALS>> {
  const created = await createCustomer(work.db, work, customer, work.now);
  return created.ok ? done(created.value) : refused(new Problem("conflict", "A customer with this slug already exists"));
}

export const ISSUE_API_KEY_REFUSALS = refusals("not_found");

/** A new key of the account with this slug: the row, and the key itself, which is never shown again. */
export async function issueApiKey(
  work: Work,
  customerSlug: string,
  name: string,
): Promise<Result<{ row: ApiKeyRow; key: string }, typeof ISSUE_API_KEY_REFUSALS>> {
  const created = await createApiKey(work.db, work, customerSlug, name, work.now);
  return created.ok ? done(created.value) : refused(notFound("Customer"));
}

export const REVOKE_KEY_REFUSALS = refusals("not_found");

/**
 * Revokes a key: the operator's any key, or, with `ownerId`, only a key of that account (another account's key is
 * not found either). Revoking twice keeps the first revocation time.
 */
export async function revokeKey(
  work: Work,
  keyId: string,
  ownerId?: string,
): Promise<Result<ApiKeyRow, typeof REVOKE_KEY_REFUSALS>> {
  const revoked = await revokeApiKey(work.db, work, keyId, work.now, ownerId);
  return revoked.ok ? done(revoked.value) : refused(notFound("API key"));
}

export const openAccountAction = operatorAction({
  operationId: "createCustomer",
  roles: ADMIN,
  refusals: OPEN_ACCOUNT_REFUSALS,
  run: openAccount,
});

export const issueApiKeyAction = operatorAction({
  operationId: "createApiKey",
  roles: ADMIN,
  refusals: ISSUE_API_KEY_REFUSALS,
  run: issueApiKey,
});

export const revokeApiKeyAction = operatorAction({
  operationId: "revokeApiKey",
  roles: ADMIN,
  refusals: REVOKE_KEY_REFUSALS,
  run: revokeKey,
});
