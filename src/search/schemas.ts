// Wire format of the stock's search: its query and its answer.
import { z } from "@hono/zod-openapi";
import { countryCodeSchema, integerParam, numberTypeSchema } from "../http/fields.ts";
import type { StockSearch } from "./store.ts";

const DEFAULT_LIMIT = 20;
const MAX_LIMIT = 100;
/** The most digits an E.164 number has, so the longest pattern that can match. */
const MAX_PATTERN_DIGITS = 15;

function digitsQuery(name: string, description: string, example: string) {
  return z
    .string()
    .regex(new RegExp(`^[0-9]{1,${MAX_PATTERN_DIGITS}}$`), {
      error: `must be 1 to ${MAX_PATTERN_DIGITS} digits (0-9), without "+" or spaces`,
    })
    .optional()
    .openapi({
      param: { name, in: "query" },
      description: `${description} (1 to ${MAX_PATTERN_DIGITS} digits, matched against the E.164 number without "+").`,
      example,
    });
}

export const availableNumbersQuery = z.object({
  country_code: countryCodeSchema.openapi({ param: { name: "country_code", in: "query" } }),
  number_type: numberTypeSchema.openapi({ param: { name: "number_type", in: "query" } }),
  starts_with: digitsQuery("starts_with", "Digits the number starts with, its country calling code first", "1415"),
  contains: digitsQuery("contains", "Digits the number contains anywhere", "777"),
  ends_with: digitsQuery("ends_with", "Digits the number ends with", "00"),
  // The default is repeated for the document: the generator does not read it through integerParam's transform.
  limit: integerParam({ min: 1, max: MAX_LIMIT })
    .default(DEFAULT_LIMIT)
    .openapi({
      param: { name: "limit", in: "query" },
      description: `Most numbers answered, 1 to ${MAX_LIMIT}.`,
      default: DEFAULT_LIMIT,
      example: DEFAULT_LIMIT,
    }),
});

export function toStockSearch(query: z.output<typeof availableNumbersQuery>): StockSearch {
  return {
    pair: { countryCode: query.country_code, numberType: query.number_type },
    patterns: { startsWith: query.starts_with, contains: query.contains, endsWith: query.ends_with },
    limit: query.limit,
  };
}

const availableNumberSchema = z
  .object({
    phone_number: z.string().openapi({ description: "E.164.", example: "+14155550123" }),
    country_code: z.string().openapi({ example: "US" }),
    number_type: z.string().openapi({ example: "mobile" }),
  })
  .openapi("AvailableNumber");

export const availableNumberListSchema = z
  .object({
    data: z.array(availableNumberSchema),
    meta: z.object({
      limit: z.int().openapi({ description: "The limit asked for (or the default)." }),
      returned: z.int().openapi({ description: "Numbers in data: fewer than limit when no more match." }),
    }),
  })
  .openapi("AvailableNumberList");

/** The answer: the numbers found, each with its pair. */
export function toAvailableNumberList(search: StockSearch, phoneNumbers: readonly string[]) {
  return {
    data: phoneNumbers.map((phoneNumber) => ({
      phone_number: phoneNumber,
      country_code: search.pair.countryCode,
      number_type: search.pair.numberType,
    })),
    meta: { limit: search.limit, returned: phoneNumbers.length },
  };
}
