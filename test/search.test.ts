// The stock's search (LIFECYCLE.md "Search and coverage before ordering"): the takeable numbers of an orderable pair in
// phone-number order, narrowed by digit patterns; never a quarantined or held number; refusals of bad patterns and of
// pairs that are not orderable. Each test stocks its own pair (a number type of its own) through the operator's import,
// and sets a number's hold by SQL where the test is about the search, not about how a hold is made.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { SEARCH_CANDIDATES } from "../src/search/store.ts";
import { TEST_ADMIN_TOKEN } from "./constants.ts";
import {
  bodyOf,
  call,
  createCustomer,
  json,
  makeOrderable,
  problem,
  type TestCustomer,
  uniqueNumberType,
  withLogs,
} from "./helpers.ts";

const COUNTRY = "DE";

let blocks = 0;

/**
 * Digits no other test's numbers start with: "+899" (no country's code, so no other file stocks it) and a block of
 * three digits 0 to 3 of this test's own. A pattern of the digits 5 to 9 never matches inside the block.
 */
function block(): string {
  const n = blocks++;
  return `+899${[16, 4, 1].map((unit) => Math.floor(n / unit) % 4).join("")}`;
}

/** Stocks the numbers in the pair through the operator's import, in one request. */
async function stock(countryCode: string, numberType: string, phoneNumbers: readonly string[]): Promise<void> {
  const answer = await call("/admin/stock", {
    method: "POST",
    headers: { Authorization: `Bearer ${TEST_ADMIN_TOKEN}`, "Content-Type": "application/json" },
    body: JSON.stringify({
      numbers: phoneNumbers.map((phone_number) => ({ phone_number, country_code: countryCode, number_type: numberType })),
    }),
  });
  expect((await bodyOf<{ imported: number }>(answer, 201)).imported).toBe(phoneNumbers.length);
}

/** An account and an orderable pair of its own, stocked with the numbers (in the order given). */
async function stockedPair(phoneNumbers: readonly string[]) {
  const customer = await createCustomer("search");
  const numberType = uniqueNumberType();
  await makeOrderable(COUNTRY, numberType);
  await stock(COUNTRY, numberType, phoneNumbers);
  return { customer, numberType };
}

type Query = { starts_with?: string; contains?: string; ends_with?: string; limit?: string };

/** The search's answer for the pair, after asserting its shape. */
async function search(customer: TestCustomer, numberType: string, query: Query = {}): Promise<string[]> {
  const body = await json(
    await customer.account["available-numbers"].$get({
      param: { customer_slug: customer.slug },
      query: { country_code: COUNTRY, number_type: numberType, ...query },
    }),
    200,
  );
  for (const item of body.data)
    expect(item).toEqual({ phone_number: item.phone_number, country_code: COUNTRY, number_type: numberType });
  expect(body.meta).toEqual({ limit: Number(query.limit ?? 20), returned: body.data.length });
  return body.data.map((item) => item.phone_number);
}

/** What the search must answer from these numbers, all takeable: the matching ones in phone order, up to the limit. */
function expected(phoneNumbers: readonly string[], query: Query): string[] {
  const matching = phoneNumbers.filter((phoneNumber) => {
    const digits = phoneNumber.slice(1);
    return (
      digits.startsWith(query.starts_with ?? "") &&
      digits.includes(query.contains ?? "") &&
      digits.endsWith(query.ends_with ?? "")
    );
  });
  return matching.sort().slice(0, Number(query.limit ?? 20));
}

/** Sets a stock number's hold as a reservation (or an order placed from one) leaves it. */
async function hold(phoneNumber: string, heldUntil: number | null): Promise<void> {
  await env.DB.prepare("UPDATE stock_numbers SET status = 'reserved', reservation_id = ?, held_until = ? WHERE phone_number = ?")
    .bind(crypto.randomUUID(), heldUntil, phoneNumber)
    .run();
}

async function quarantine(phoneNumber: string): Promise<void> {
  await env.DB.prepare("UPDATE stock_numbers SET status = 'quarantined' WHERE phone_number = ?").bind(phoneNumber).run();
}

const HOUR_MS = 3_600_000;

describe("search available numbers", () => {
  it("answers the pair's numbers in phone-number order, 20 by default, at most limit, none of another pair", async () => {
    const prefix = block();
    const numbers = Array.from({ length: 25 }, (_, i) => `${prefix}${String(1000 - i * 7).padStart(4, "0")}`);
    const { customer, numberType } = await stockedPair(numbers);
    // The same type in another country is another pair.
    await stock("FR", numberType, [`${prefix}0001`, `${prefix}9999`]);
    const sorted = [...numbers].sort();
    expect(await search(customer, numberType)).toEqual(sorted.slice(0, 20));
    expect(await search(customer, numberType, { limit: "5" })).toEqual(sorted.slice(0, 5));
    expect(await search(customer, numberType, { limit: "100" })).toEqual(sorted);
    for (const query of [{ ends_with: "9999" }, { contains: "9999" }, { starts_with: `${prefix.slice(1)}9` }]) {
      expect(await search(customer, numberType, query), JSON.stringify(query)).toEqual([]);
    }
  });

  it("matches starts_with, contains and ends_with against the digits without +, each given one must match", async () => {
    const prefix = block();
    const tails = ["51234", "51212", "53412", "56785", "57777", "50012", "61256", "67788", "60340", "68899", "75656", "79999"];
    const numbers = tails.map((tail) => `${prefix}${tail}`);
    const { customer, numberType } = await stockedPair(numbers);
    const digits = prefix.slice(1);
    const queries: Query[] = [
      { starts_with: "899" },
      { starts_with: `${digits}5` },
      { starts_with: `${digits}61256` },
      { contains: "12" },
      { contains: "77" },
      { contains: `${digits}6` },
      { ends_with: "12" },
      { ends_with: "9" },
      { ends_with: `${digits}75656` },
      { starts_with: `${digits}5`, contains: "12" },
      { contains: "12", ends_with: "2" },
      { starts_with: `${digits}7`, ends_with: "9" },
      { starts_with: `${digits}5`, contains: "34", ends_with: "12" },
      { contains: "56", limit: "2" },
    ];
    for (const query of queries) {
      const want = expected(numbers, query);
      expect(want.length, JSON.stringify(query)).toBeGreaterThan(0);
      expect(await search(customer, numberType, query), JSON.stringify(query)).toEqual(want);
    }
    // No number matches: nothing, for each kind of pattern.
    for (const query of [
      { starts_with: "8999" },
      { contains: "555" },
      { ends_with: "000" },
      { contains: "12", ends_with: "7" },
    ]) {
      expect(await search(customer, numberType, query), JSON.stringify(query)).toEqual([]);
    }
  });

  it("never answers a quarantined number or one held by a reservation or for its order; a lapsed hold's number is available", async () => {
    const prefix = block();
    const [available, quarantined, held, lapsed, forOrder] = ["5771", "5772", "5773", "5774", "5775"].map(
      (tail) => `${prefix}${tail}`,
    ) as [string, string, string, string, string];
    const { customer, numberType } = await stockedPair([available, quarantined, held, lapsed, forOrder]);
    await quarantine(quarantined);
    await hold(held, Date.now() + HOUR_MS);
    await hold(lapsed, Date.now() - 60_000);
    await hold(forOrder, null);
    const takeable = [available, lapsed];
    // Every way the search reads: the pair, a prefix, a contains of few matches, an ends_with.
    expect(await search(customer, numberType)).toEqual(takeable);
    expect(await search(customer, numberType, { starts_with: `${prefix.slice(1)}57` })).toEqual(takeable);
    expect(await search(customer, numberType, { contains: "577" })).toEqual(takeable);
    expect(await search(customer, numberType, { ends_with: "4" })).toEqual([lapsed]);
    expect(await search(customer, numberType, { ends_with: "3" })).toEqual([]);
  });

  it(`finds the first matches of common patterns (${SEARCH_CANDIDATES} or more candidates), beyond the candidates read`, async () => {
    // As many numbers containing "156" as the candidates read, all after the one number s in phone order but before it
    // in the index (its rowids are the numbers' digits): if the candidates read were taken as every match, s would be
    // missed. Digits 0-4, 7, 8 in between never make another "156" or a "9999".
    const prefix = block();
    const base7 = (i: number) => [343, 49, 7, 1].map((unit) => "0123478"[Math.floor(i / unit) % 7]).join("");
    const many = Array.from({ length: SEARCH_CANDIDATES }, (_, i) => `${prefix}9156${base7(i)}`);
    // Longer, so after them all by its digits' value, and first in phone order.
    const first = `${prefix}01569999`;
    // Before them all in phone order, without "156".
    const other = `${prefix}0100000`;
    const { customer, numberType } = await stockedPair([...many, first, other]);
    const [n1, n2, n3, n4, n5, n6] = [...many].sort() as [string, string, string, string, string, string];
    await hold(n1, Date.now() - 60_000);
    await quarantine(n2);
    await hold(n3, Date.now() + HOUR_MS);
    await hold(n4, null);
    expect(await search(customer, numberType, { contains: "156", limit: "4" })).toEqual([first, n1, n5, n6]);
    // With the other patterns: a rare ends_with, a prefix, both.
    expect(await search(customer, numberType, { contains: "156", ends_with: "9999" })).toEqual([first]);
    expect(await search(customer, numberType, { contains: "156", starts_with: first.slice(1, 9) })).toEqual([first]);
    expect(await search(customer, numberType, { contains: "1569", ends_with: "99", starts_with: prefix.slice(1) })).toEqual([
      first,
    ]);
    expect(await search(customer, numberType, { contains: "156", ends_with: "0", limit: "3" })).toEqual(
      expected([n1, ...[...many].sort().slice(4)], { ends_with: "0", limit: "3" }),
    );
  });

  it("reads a rare ends_with whole even when its trigrams are common: checked on the index, not by a scan of the pair", async () => {
    // Every number has "000", two end with "00000": the candidates that really match are two, so the search answers
    // from them; counting the trigram's candidates instead would take "000" for common and scan the pair in phone
    // order (at a million numbers, every one of them).
    const prefix = block();
    const many = Array.from({ length: SEARCH_CANDIDATES + 100 }, (_, i) => `${prefix}7000${String(i + 1).padStart(4, "0")}`);
    const ends = [`${prefix}8800000`, `${prefix}9900000`];
    const { customer, numberType } = await stockedPair([...many, ...ends]);
    // The key known to the isolate first (a new key's first request looks it up in a call of its own).
    await search(customer, numberType, { limit: "1" });
    const { result, lines } = await withLogs(() => search(customer, numberType, { ends_with: "00000" }));
    expect(result).toEqual(ends);
    // One D1 call: the candidates answered; a scan of the pair would have been a second.
    expect(lines.map((line) => line.d1_calls)).toEqual([1]);
  });

  it("refuses a pair that is not orderable with 400 not_orderable, whatever its stock", async () => {
    const prefix = block();
    const customer = await createCustomer("search");
    const numberType = uniqueNumberType();
    await stock(COUNTRY, numberType, [`${prefix}5555`]);
    const refused = await problem(
      await customer.account["available-numbers"].$get({
        param: { customer_slug: customer.slug },
        query: { country_code: COUNTRY, number_type: numberType, contains: "5555" },
      }),
      400,
      "not_orderable",
    );
    expect(refused.detail).toBe(
      `${numberType} numbers cannot be ordered in ${COUNTRY} right now; choose another number_type or country_code`,
    );
    expect(refused.errors).toEqual([
      { location: "query", pointer: "number_type", message: `cannot be ordered in ${COUNTRY} right now` },
    ]);
  });

  it("refuses bad digits, a bad limit and a missing pair with 400 naming the parameter", async () => {
    const customer = await createCustomer("search");
    const numberType = uniqueNumberType();
    await makeOrderable(COUNTRY, numberType);
    const path = `/api/customers/${customer.slug}/available-numbers?country_code=${COUNTRY}&number_type=${numberType}`;
    const digitsMessage = 'must be 1 to 15 digits (0-9), without "+" or spaces';
    // "+44" unencoded is " 44" to a query string; encoded, it is "+44": both refused.
    for (const name of ["starts_with", "contains", "ends_with"]) {
      for (const value of ["", "12a", "1234567890123456", "%2B44", "+44"]) {
        const refused = await problem(await customer.call(`${path}&${name}=${value}`), 400, "validation_error");
        expect(refused.errors, `${name}=${value}`).toEqual([{ location: "query", pointer: name, message: digitsMessage }]);
      }
    }
    for (const value of ["0", "101", "ten"]) {
      const refused = await problem(await customer.call(`${path}&limit=${value}`), 400, "validation_error");
      expect(refused.errors?.map((error) => error.pointer)).toEqual(["limit"]);
    }
    const bare = `/api/customers/${customer.slug}/available-numbers`;
    for (const [query, missing] of [
      [`number_type=${numberType}`, "country_code"],
      [`country_code=${COUNTRY}`, "number_type"],
      [`country_code=de&number_type=${numberType}`, "country_code"],
    ] as const) {
      const refused = await problem(await customer.call(`${bare}?${query}`), 400, "validation_error");
      expect(refused.errors?.map((error) => error.pointer)).toEqual([missing]);
    }
    // Fifteen digits is a whole number, and searchable.
    expect(await search(customer, numberType, { ends_with: "123456789012345" })).toEqual([]);
  });

  it("answers another account's slug with 404", async () => {
    const alice = await createCustomer("search");
    const bob = await createCustomer("search");
    const numberType = uniqueNumberType();
    await makeOrderable(COUNTRY, numberType);
    await problem(
      await alice.account["available-numbers"].$get({
        param: { customer_slug: bob.slug },
        query: { country_code: COUNTRY, number_type: numberType },
      }),
      404,
      "not_found",
    );
  });
});
