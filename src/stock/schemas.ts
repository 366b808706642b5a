// Wire format of the number stock and its import.
import { z } from "@hono/zod-openapi";
import { STOCK_SOURCES, STOCK_STATUSES, type StockNumberRow } from "../db/schema.ts";
import {
  assignedCountryCodeSchema,
  countryCodeSchema,
  e164Schema,
  numberTypeIdentifierSchema,
  numberTypeSchema,
  timestampSchema,
} from "../http/fields.ts";
import { commaList, pageQuery, pageSchema, searchQuery } from "../http/pagination.ts";
import { decodeUtf8 } from "../lib/content.ts";
import { MalformedCsv, parseCsv, TooManyCsvRecords } from "../lib/csv.ts";
import { done, type Result, refused, validationError } from "../lib/problem.ts";
import { toIso } from "../lib/time.ts";
import type { StockListQuery } from "./store.ts";

/** The most numbers one JSON import holds (its body may be up to 1 MiB), and one CSV import (up to 10 MiB). */
const MAX_JSON_ROWS = 10_000;
const MAX_CSV_ROWS = 100_000;
export const JSON_IMPORT_BYTES = 1024 * 1024;
export const CSV_IMPORT_BYTES = 10 * 1024 * 1024;
/** A CSV import's limits as text, for the API description and the console's form. */
export const CSV_IMPORT_LIMITS = `up to ${CSV_IMPORT_BYTES / (1024 * 1024)} MiB and ${MAX_CSV_ROWS.toLocaleString("en-US")} rows`;
/** Each list of an import's report names at most this many; its count says how many there were. */
export const REPORTED_ITEMS = 1000;

/**
 * One number to stock, as each row is checked (the body itself takes any rows, so a bad one refuses only itself): its
 * country one ISO 3166-1 assigns, its type an identifier as the catalog's, whether or not the pair is in the catalog.
 */
export const stockRowSchema = z
  .strictObject({
    phone_number: e164Schema,
    country_code: assignedCountryCodeSchema,
    number_type: numberTypeIdentifierSchema,
  })
  .openapi("StockRow");

const CSV_HEADER = ["phone_number", "country_code", "number_type"] as const;

export const stockImportBody = z
  .strictObject({
    numbers: z
      .array(z.record(z.string(), z.unknown()))
      .min(1)
      .max(MAX_JSON_ROWS)
      .openapi({
        description:
          `1 to ${MAX_JSON_ROWS} rows, each {phone_number, country_code, number_type} (StockRow). Each row is checked ` +
          "on its own: a bad one is reported under invalid, the good ones are imported.",
      }),
  })
  .openapi("StockImport");

export const stockCsvBody = z.string().openapi({
  description:
    `RFC 4180 CSV (UTF-8, an optional byte order mark), ${CSV_IMPORT_LIMITS} ` +
    `after the header ${CSV_HEADER.join(",")} (blank lines at the end are no rows). A body that is not UTF-8, ` +
    "another header or a row of another width is a 400 and imports nothing; a bad value refuses only its row.",
  example: "phone_number,country_code,number_type\n+14155550100,US,mobile\n",
});

export const importReportSchema = z
  .object({
    import_id: z.uuid(),
    imported: z.int().openapi({ description: "Numbers now in stock from this import." }),
    duplicates: z.array(z.string()).openapi({
      description: `Numbers skipped: in stock already, allocated, or repeated in the request (at most ${REPORTED_ITEMS}).`,
    }),
    duplicate_count: z.int(),
    invalid: z
      .array(
        z.object({
          index: z.int().openapi({ description: "The row's place, from 0 (in a CSV, the data rows after the header)." }),
          errors: z.array(z.object({ field: z.string(), message: z.string() })),
        }),
      )
      .openapi({ description: `Rows refused, each with every reason (at most ${REPORTED_ITEMS}).` }),
    invalid_count: z.int(),
    unlisted_pairs: z
      .array(
        z.object({
          country_code: stockRowSchema.shape.country_code,
          number_type: stockRowSchema.shape.number_type,
          count: z.int(),
        }),
      )
      .openapi({
        description:
          "The pairs of numbers this import brought that are not in the catalog, with how many of each (at most " +
          `${REPORTED_ITEMS}, by country and type): no order can take them until the pair is added, and a pair such ` +
          "as US moblie is a typo seen at once.",
      }),
    unlisted_pair_count: z.int(),
  })
  .openapi("StockImportReport");

export const stockNumberSchema = z
  .object({
    phone_number: z.string().openapi({ example: "+14155550100" }),
    country_code: z.string(),
    number_type: z.string(),
    import_id: z.uuid().openapi({ description: "The import that brought it; for a released number, its closed tenure's id." }),
    imported_at: timestampSchema,
    status: z.enum(STOCK_STATUSES).openapi({
      description: "available: an allocation may take it; quarantined: back from a released tenure, not before available_at.",
    }),
    available_at: timestampSchema.openapi({ description: "From when it may be allocated: its import, or its quarantine's end." }),
    source: z.enum(STOCK_SOURCES).openapi({ description: "import: the operator's import; released: a closed tenure's number." }),
  })
  .openapi("StockNumber");

export const stockPageSchema = pageSchema(stockNumberSchema, "Stock");

export const removedStockNumberSchema = stockNumberSchema.extend({ removed_at: timestampSchema }).openapi("RemovedStockNumber");

export const stockSummarySchema = z
  .object({
    data: z.array(
      z.object({
        country_code: z.string(),
        number_type: z.string(),
        count: z.int().openapi({ description: "Every number in stock, whatever its status." }),
        available: z.int(),
        quarantined: z.int(),
        reserved: z.int(),
      }),
    ),
    total: z.int(),
  })
  .openapi("StockSummary");

export const listStockQuery = z.object({
  page: pageQuery.page,
  limit: pageQuery.limit,
  country_code: commaList(countryCodeSchema, "country_code", "Country codes."),
  number_type: commaList(numberTypeSchema, "number_type", "Number types."),
  search: searchQuery.openapi({ description: "Substring of the phone number (digits, with or without +)." }),
  status: commaList(z.enum(STOCK_STATUSES), "status", "Statuses."),
  import_id: z
    .uuid({ error: "must be a valid UUID" })
    .optional()
    .openapi({ param: { name: "import_id", in: "query" }, description: "The numbers of one import." }),
});

export function toStockListQuery(q: z.infer<typeof listStockQuery>): StockListQuery {
  return {
    countryCodes: q.country_code,
    numberTypes: q.number_type,
    statuses: q.status,
    search: q.search,
    importId: q.import_id,
  };
}

export const stockPhoneParams = z.object({
  phone_number: e164Schema.openapi({
    param: { name: "phone_number", in: "path" },
    description: "The number in E.164, its + as it is or as %2B.",
  }),
});

export function toStockNumber(row: StockNumberRow): z.infer<typeof stockNumberSchema> {
  return {
    phone_number: row.phoneNumber,
    country_code: row.countryCode,
    number_type: row.numberType,
    import_id: row.importId,
    imported_at: toIso(row.importedAt),
    status: row.status,
    available_at: toIso(row.availableAt),
    source: row.source,
  };
}

function malformedBody(message: string) {
  return refused(validationError([{ location: "body", pointer: "", message }]));
}

/**
 * A CSV import's rows as the JSON import's (objects by column), or the 400 that imports nothing: not UTF-8, another
 * header, a row of another width, malformed quoting, more than MAX_CSV_ROWS rows (data rows: neither the header nor
 * blank lines at the end count).
 */
export function rowsOfCsv(bytes: Uint8Array): Result<Record<string, string>[]> {
  const text = decodeUtf8(bytes);
  if (text === undefined) return malformedBody("must be UTF-8 text");
  let records: string[][];
  try {
    records = parseCsv(text, MAX_CSV_ROWS + 1);
  } catch (error) {
    if (error instanceof TooManyCsvRecords) {
      return malformedBody(`must have at most ${MAX_CSV_ROWS.toLocaleString("en-US")} rows after the header`);
    }
    if (error instanceof MalformedCsv) return malformedBody(`is not valid CSV: ${error.message}`);
    throw error;
  }
  const [header, ...rows] = records;
  if (header?.join(",") !== CSV_HEADER.join(",")) return malformedBody(`must start with the header ${CSV_HEADER.join(",")}`);
  if (rows.length === 0) return malformedBody("must have at least one row after the header");
  const wrong = rows.findIndex((row) => row.length !== CSV_HEADER.length);
  if (wrong !== -1) return malformedBody(`line ${wrong + 2} must have ${CSV_HEADER.length} fields`);
  return done(rows.map((row) => Object.fromEntries(CSV_HEADER.map((name, i) => [name, row[i]!]))));
}
