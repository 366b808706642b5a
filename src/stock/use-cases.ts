// Stock actions: import, checking and reporting each row on its own, and removal.
import type { StockNumberRow } from "../db/schema.ts";
import type { Work } from "../env.ts";
import { done, notFound, Problem, type Result, refusals, refused } from "../lib/problem.ts";
import { FULFILMENT, operatorAction } from "../staff/roles.ts";
import { isHeldNow } from "./holds.ts";
import { REPORTED_ITEMS, stockRowSchema } from "./schemas.ts";
import { importStock, pairKey, removeFromStock, type StockRow } from "./store.ts";

export interface ImportReport {
  importId: string;
  imported: number;
  duplicates: string[];
  duplicateCount: number;
  invalid: { index: number; errors: { field: string; message: string }[] }[];
  invalidCount: number;
  /** The imported numbers' pairs that are not in the catalog, with how many of each, by country and type. */
  unlistedPairs: { countryCode: string; numberType: string; count: number }[];
  unlistedPairCount: number;
}

const IMPORT_NUMBERS_REFUSALS = refusals();

/**
 * Imports the rows, each checked first by the stock row's schema: a bad row is reported (its place and every reason),
 * a number repeated in the request counts once (the repeats are duplicates), and the rest are imported in one batch,
 * skipping numbers in stock already or allocated (duplicates too). The numbers imported for a pair the catalog lacks
 * are counted per pair: no order takes them until the pair is added, and a typo in a type shows at once.
 */
async function importNumbers(
  work: Work,
  rows: readonly unknown[],
): Promise<Result<ImportReport, typeof IMPORT_NUMBERS_REFUSALS>> {
  const valid: StockRow[] = [];
  const seen = new Set<string>();
  const repeated: string[] = [];
  const invalid: ImportReport["invalid"] = [];
  for (const [index, row] of rows.entries()) {
    const parsed = stockRowSchema.safeParse(row);
    if (!parsed.success) {
      const errors = parsed.error.issues.flatMap((issue) =>
        issue.code === "unrecognized_keys"
          ? issue.keys.map((field) => ({ field, message: "is not a column of the stock" }))
          : [{ field: String(issue.path[0] ?? ""), message: issue.message }],
      );
      invalid.push({ index, errors });
      continue;
    }
    const { phone_number: phoneNumber, country_code: countryCode, number_type: numberType } = parsed.data;
    if (seen.has(phoneNumber)) {
      repeated.push(phoneNumber);
      continue;
    }
    seen.add(phoneNumber);
    valid.push({ phoneNumber, countryCode, numberType });
  }
  const counts = { repeated: repeated.length, invalid: invalid.length };
  const { importId, imported, catalogued } = await importStock(work.db, work, valid, counts, work.now);
  const duplicates = [...valid.map((row) => row.phoneNumber).filter((phone) => !imported.has(phone)), ...repeated];
  const unlisted = new Map<string, ImportReport["unlistedPairs"][number]>();
  for (const { phoneNumber, countryCode, numberType } of valid) {
    const key = pairKey(countryCode, numberType);
    if (!imported.has(phoneNumber) || catalogued.has(key)) continue;
    const pair = unlisted.get(key) ?? { countryCode, numberType, count: 0 };
    pair.count++;
    unlisted.set(key, pair);
  }
  return done({
    importId,
    imported: imported.size,
    duplicates: duplicates.slice(0, REPORTED_ITEMS),
    duplicateCount: duplicates.length,
    invalid: invalid.slice(0, REPORTED_ITEMS),
    invalidCount: invalid.length,
    // By key: the country's two letters first, then the type.
    unlistedPairs: [...unlisted]
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .slice(0, REPORTED_ITEMS)
      .map(([, pair]) => pair),
    unlistedPairCount: unlisted.size,
  });
}

const REMOVE_NUMBER_REFUSALS = refusals("not_found", "conflict");

/**
 * Takes a number out of the stock; one not in stock (or allocated: never both) is not found, one a reservation holds
 * is a conflict naming it.
 */
async function removeNumber(work: Work, phoneNumber: string): Promise<Result<StockNumberRow, typeof REMOVE_NUMBER_REFUSALS>> {
  const removed = await removeFromStock(work.db, work, phoneNumber, work.now);
  if (removed.ok) return done(removed.value);
  if (removed.reason === "held") {
    return refused(
      new Problem(
        "conflict",
        `Held by a reservation, not to be removed while the hold lasts: ${removed.phoneNumbers.join(", ")}`,
      ),
    );
  }
  return refused(notFound("Stock number"));
}

export const importStockAction = operatorAction({
  operationId: "importStock",
  roles: FULFILMENT,
  refusals: IMPORT_NUMBERS_REFUSALS,
  run: importNumbers,
});

export const removeStockNumberAction = operatorAction({
  operationId: "removeStockNumber",
  roles: FULFILMENT,
  refusals: REMOVE_NUMBER_REFUSALS,
  // A number a reservation holds stays while the hold lasts (the store refuses it with 409 conflict).
  available: (row: Pick<StockNumberRow, "status" | "heldUntil">, now: number) => !isHeldNow(row, now),
  run: removeNumber,
});
