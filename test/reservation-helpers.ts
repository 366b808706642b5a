// What the reservation tests share: a pair of their own with numbers in stock, and rows read with SQL.
import { env } from "cloudflare:workers";
import { json, makeOrderable, operator, uniqueNumberType, uniquePhoneNumber } from "./helpers.ts";

/** A pair of its own (US and a new type, orderable unless asked) with `count` numbers in stock, in phone order. */
export async function stockedPair(count: number, orderable = true): Promise<{ type: string; phones: string[] }> {
  const type = uniqueNumberType();
  if (orderable) await makeOrderable("US", type);
  const phones = Array.from({ length: count }, uniquePhoneNumber).sort();
  await json(
    await operator.admin.stock.$post({
      json: { numbers: phones.map((phone_number) => ({ phone_number, country_code: "US", number_type: type })) },
    }),
    201,
  );
  return { type, phones };
}

export async function sqlRows<T = Record<string, unknown>>(query: string, ...params: unknown[]): Promise<T[]> {
  const { results } = await env.DB.prepare(query)
    .bind(...params)
    .all<T>();
  return results;
}
