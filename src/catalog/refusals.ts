// The refusal of a request naming a pair that is not in the orderable catalog: an order's, a search's, a reservation's.
import { type FieldLocation, Problem } from "../lib/problem.ts";
import type { CatalogPair } from "./store.ts";

/** An error on the whole request and on number_type, the field to change (`pointer`, where the request holds it). */
export function notOrderable(
  { countryCode, numberType }: CatalogPair,
  location: FieldLocation,
  pointer: string,
): Problem<"not_orderable"> {
  return new Problem(
    "not_orderable",
    `${numberType} numbers cannot be ordered in ${countryCode} right now; choose another number_type or country_code`,
    { errors: [{ location, pointer, message: `cannot be ordered in ${countryCode} right now` }] },
  );
}
