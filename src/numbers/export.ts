// The account's numbers as CSV (LIFECYCLE.md "Export"): the list's filters and sort, streamed by keyset pages so that
// memory holds one page whatever the number of rows.
import type { z } from "@hono/zod-openapi";
import type { Work } from "../env.ts";
import { done, Problem, type Result, refusals, refused } from "../lib/problem.ts";
import { todayUtc } from "../lib/time.ts";
import { type numberSchema, toNumber } from "./schemas.ts";
import { countNumbersUpTo, keyOf, type NumberKey, type NumberListQuery, numbersAfter } from "./store.ts";

/** The most rows one export writes; a filter matching more is refused. */
export const MAX_EXPORT_ROWS = 500_000;
/** Rows read by one query of the export. */
const EXPORT_PAGE_ROWS = 1000;

type NumberItem = z.infer<typeof numberSchema>;

/** The columns, in the order of the Number item. */
export const EXPORT_COLUMNS = [
  "number_id",
  "phone_number",
  "country_code",
  "number_type",
  "status",
  "order_id",
  "kyc_status",
  "kyc_profile_id",
  "created_at",
  "updated_at",
  "released_at",
  "restorable_until",
  "release_reason",
  "suspended_at",
  "suspension_reason",
  "release_protected",
  "tags",
  "customer_reference",
] as const satisfies readonly (keyof NumberItem)[];

/** A spreadsheet reads a cell starting so as a formula. */
const FORMULA_START = /^[=+\-@\t\r]/;
/** RFC 4180: a field holding one of these is quoted. */
const NEEDS_QUOTES = /[",\r\n]/;

/**
 * One CSV field: null empty, booleans true/false, a list joined by `;`; a text a spreadsheet would run as a formula
 * gets a leading `'` unless `verbatim` (the phone number, which starts with + and is no formula); quoted per RFC 4180.
 */
function csvCell(value: string | boolean | null | readonly string[], verbatim = false): string {
  let text =
    value === null ? "" : typeof value === "boolean" ? String(value) : typeof value === "string" ? value : value.join(";");
  if (!verbatim && FORMULA_START.test(text)) text = `'${text}`;
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

const LINE_END = "\r\n";

function csvLine(item: NumberItem): string {
  return EXPORT_COLUMNS.map((column) => csvCell(item[column], column === "phone_number")).join(",") + LINE_END;
}

/** The download's name: the account and the day (UTC) of the export. */
export function exportFilename(slug: string, now: number): string {
  return `numbers-${slug}-${todayUtc(now)}.csv`;
}

export interface ExportLimits {
  /** The most rows (MAX_EXPORT_ROWS). */
  maxRows?: number;
  /** Rows a query reads (EXPORT_PAGE_ROWS); tests use fewer to cross pages. */
  pageRows?: number;
}

const EXPORT_REFUSALS = refusals("validation_error");

/**
 * The CSV of the account's numbers that `query` matches, in its order: the header, then a page of rows each time the
 * reader asks for more (the stream's pull), each page one query after the last row's (sort key, id). The count that
 * refuses more than maxRows is read first, before anything is answered; a row whose sort key changes during the export
 * may be written twice or not at all.
 */
export async function exportNumbers(
  work: Work,
  customerId: string,
  query: NumberListQuery,
  { maxRows = MAX_EXPORT_ROWS, pageRows = EXPORT_PAGE_ROWS }: ExportLimits = {},
): Promise<Result<ReadableStream<Uint8Array>, typeof EXPORT_REFUSALS>> {
  const matching = await countNumbersUpTo(work.db, customerId, query, maxRows);
  if (matching > maxRows) {
    return refused(
      new Problem(
        "validation_error",
        `The filters match more than ${maxRows.toLocaleString("en-US")} numbers, the most one export holds; narrow them (status, country_code, number_type, tag, released_from, released_to, …)`,
      ),
    );
  }
  const encoder = new TextEncoder();
  let after: NumberKey | undefined;
  let written = 0;
  return done(
    new ReadableStream<Uint8Array>(
      {
        start(controller) {
          controller.enqueue(encoder.encode(EXPORT_COLUMNS.join(",") + LINE_END));
        },
        async pull(controller) {
          const limit = Math.min(pageRows, maxRows - written);
          const rows = limit > 0 ? await numbersAfter(work.db, customerId, query, after, limit) : [];
          if (rows.length > 0) {
            controller.enqueue(encoder.encode(rows.map((row) => csvLine(toNumber(row))).join("")));
            written += rows.length;
            after = keyOf(rows[rows.length - 1]!.number, query.sortBy);
          }
          if (rows.length < pageRows) controller.close();
        },
      },
      // Read only when the reader asks: one page in memory at a time.
      { highWaterMark: 0 },
    ),
  );
}
