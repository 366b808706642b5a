// The account an admin route names by slug, or the 404 that answers an unknown one.
import { findCustomerBySlug } from "../accounts/store.ts";
import type { Database } from "../db/client.ts";
import type { CustomerRow } from "../db/schema.ts";
import { notFound } from "../http/problem.ts";

export async function requireCustomer(db: Database, slug: string): Promise<CustomerRow> {
  const customer = await findCustomerBySlug(db, slug);
  if (!customer) throw notFound("Customer");
  return customer;
}
