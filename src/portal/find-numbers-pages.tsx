// The portal's Find numbers page: the stock's search for a pair of the catalog, then a reservation of the numbers
// chosen (or of a quantity), through the same use cases as the API (src/search/, src/reservations/).
import type { Context } from "hono";
import { toCatalogEntry } from "../catalog/schemas.ts";
import { listCatalog } from "../catalog/store.ts";
import { pageWindow } from "../db/paging.ts";
import type { PortalEnv } from "../env.ts";
import { workOf } from "../http/request-context.ts";
import { createRouter } from "../http/router.ts";
import type { Problem } from "../lib/problem.ts";
import { countryName, words } from "../lib/words.ts";
import { createReservationBody, toReservation, toReservationRequest } from "../reservations/schemas.ts";
import { reserveNumbers } from "../reservations/use-cases.ts";
import { availableNumbersQuery, toStockSearch } from "../search/schemas.ts";
import { searchNumbersAction } from "../search/use-cases.ts";
import { CsrfField, Notice, Table } from "../ui/components.tsx";
import { plural } from "../ui/format.ts";
import { fieldMessages, formInteger, problemFieldLists, readForm, Select, TextInput } from "../ui/forms.tsx";
import { renderPage } from "../ui/renderer.tsx";
import { HoldFields, holdOf, profilesUnderReview, reservationHref } from "./reservation-parts.tsx";

const PAGE = "/portal/find-numbers";
/** The catalog's pairs a page offers, at most (one row per pair: a catalog is far smaller). */
const MAX_PAIRS = 1_000;

type Errors = Record<string, string | readonly string[]>;

const AVAILABILITY_WORDS = { plenty: "plenty available", limited: "a few available", none: "none available" } as const;

/** The search's fields as the page's address holds them: the pair as "US/mobile", and the digit patterns. */
const SEARCH_FIELDS = ["pair", "starts_with", "contains", "ends_with"] as const;

function searchValues(c: Context): Record<string, string> {
  const values: Record<string, string> = {};
  for (const name of SEARCH_FIELDS) {
    const value = c.req.query(name)?.trim();
    if (value) values[name] = value;
  }
  return values;
}

/** The API's search query from the page's fields: the pair split into country_code and number_type. */
function searchQueryOf(values: Record<string, string>) {
  const [country_code, number_type] = (values.pair ?? "").split("/");
  return availableNumbersQuery.safeParse({
    country_code: country_code || undefined,
    number_type: number_type || undefined,
    starts_with: values.starts_with,
    contains: values.contains,
    ends_with: values.ends_with,
  });
}

/** Errors of country_code or number_type belong to the page's one pair field. */
function withPairErrors(errors: Errors): Errors {
  const pair = errors.number_type ?? errors.country_code;
  return pair === undefined ? errors : { ...errors, pair };
}

interface Found {
  query: string;
  pair: { countryCode: string; numberType: string };
  phoneNumbers: string[];
  limit: number;
}

/** The search the address asks for: the numbers found, the fields' errors, or nothing asked yet. */
async function runSearch(
  c: Context<PortalEnv>,
  values: Record<string, string>,
): Promise<{ found?: Found; errors: Errors; refusal?: string }> {
  if (values.pair === undefined) return { errors: {} };
  const parsed = searchQueryOf(values);
  if (!parsed.success) return { errors: withPairErrors(fieldMessages(parsed.error.issues)) };
  const search = toStockSearch(parsed.data);
  const result = await searchNumbersAction.run(workOf(c), search);
  if (!result.ok) return { errors: withPairErrors(problemFieldLists(result.problem)), refusal: result.problem.message };
  return {
    found: { query: new URLSearchParams(values).toString(), pair: search.pair, phoneNumbers: result.value, limit: search.limit },
    errors: {},
  };
}

interface Reserving {
  values: Record<string, string>;
  errors: Errors;
  /** The named numbers a refusal says are not available. */
  unavailable?: string[];
}

/** The page: the search the address asks for, and a reservation's form as posted (refused: `problem`, or `status`). */
async function findPage(c: Context<PortalEnv>, reserving: Reserving = { values: {}, errors: {} }, refused?: Problem | 400) {
  const problem = refused === 400 ? undefined : refused;
  const { db, visitor } = c.var;
  const values = searchValues(c);
  const [catalog, profiles, search] = await Promise.all([
    listCatalog(db, pageWindow(1, MAX_PAIRS)),
    profilesUnderReview(db, visitor.customer.id),
    runSearch(c, values),
  ]);
  const pairs = catalog.rows.map(toCatalogEntry);
  const found = search.found;
  const refusal =
    problem?.message ??
    search.refusal ??
    (refused === 400 ? "The numbers cannot be reserved; each problem is shown beside its field." : undefined);
  const chosen = new Set(reserving.values.phone_numbers?.split(",") ?? []);
  const refusedNumbers = reserving.errors.phone_numbers !== undefined || reserving.unavailable !== undefined;
  return renderPage(
    c,
    { title: "Find numbers", section: "find" },
    <>
      <h1>Find numbers</h1>
      {refusal ? <Notice kind="error">{refusal}</Notice> : null}
      <form method="get" action={PAGE} class="stack card" aria-label="Search">
        <Select
          name="pair"
          label="Country and type"
          value={values.pair}
          blank="Choose a country and type"
          options={pairs.map(
            (p) =>
              [
                `${p.country_code}/${p.number_type}`,
                `${countryName(p.country_code)} (${p.country_code}), ${words(p.number_type)}: ${AVAILABILITY_WORDS[p.availability]}`,
              ] as const,
          )}
          error={search.errors.pair}
        />
        <TextInput
          name="starts_with"
          label="Starts with"
          value={values.starts_with}
          error={search.errors.starts_with}
          inputmode="numeric"
          hint="Digits, the country calling code first (1415)"
        />
        <TextInput name="contains" label="Contains" value={values.contains} error={search.errors.contains} inputmode="numeric" />
        <TextInput
          name="ends_with"
          label="Ends with"
          value={values.ends_with}
          error={search.errors.ends_with}
          inputmode="numeric"
        />
        <div class="actions">
          <button type="submit">Search</button>
        </div>
      </form>
      {found ? (
        <form method="post" action={`${PAGE}/reserve?${found.query}`} class="stack card" aria-label="Reserve" novalidate>
          <CsrfField token={visitor.csrfToken} />
          <h2>
            {found.phoneNumbers.length === 0
              ? "No available numbers match"
              : found.phoneNumbers.length === found.limit
                ? `The first ${found.limit} available numbers`
                : `${plural(found.phoneNumbers.length, "available number")}`}
          </h2>
          <UnavailableNumbers errors={reserving.errors.phone_numbers} unavailable={reserving.unavailable} />
          {found.phoneNumbers.length > 0 ? (
            <Table
              label="Numbers found"
              rows={found.phoneNumbers}
              columns={[
                {
                  label: "Select",
                  cell: (phone) => (
                    <label class="check">
                      <input
                        type="checkbox"
                        name="phone_numbers"
                        value={phone}
                        checked={chosen.has(phone)}
                        aria-describedby={refusedNumbers ? "phone_numbers-error" : undefined}
                      />
                      <span class="visually-hidden">Select {phone}</span>
                    </label>
                  ),
                },
                { label: "Number", cell: (phone) => phone },
              ]}
            />
          ) : null}
          <HoldFields values={reserving.values} errors={reserving.errors} profiles={profiles} />
          {found.phoneNumbers.length > 0 ? (
            <div class="actions">
              <button type="submit" name="by" value="numbers">
                Reserve the numbers selected
              </button>
            </div>
          ) : null}
          <fieldset class="checks">
            <legend>Or the first available, by quantity (held as above)</legend>
            <TextInput
              name="quantity"
              label="Quantity"
              type="number"
              min="1"
              value={reserving.values.quantity}
              error={reserving.errors.quantity}
            />
            <TextInput
              name="starts_with"
              id="quantity_starts_with"
              label="Starting with"
              value={reserving.values.starts_with}
              error={reserving.errors.starts_with}
              inputmode="numeric"
              hint="Optional digits, the country calling code first"
            />
            <div class="actions">
              <button type="submit" name="by" value="quantity">
                Reserve by quantity
              </button>
            </div>
          </fieldset>
        </form>
      ) : null}
    </>,
    problem?.status ?? (refused === 400 || search.refusal || Object.keys(search.errors).length > 0 ? 400 : 200),
  );
}

/** A reservation's refusal of named numbers: each number that is not available, by name. */
function UnavailableNumbers({ errors, unavailable }: { errors: Errors[string] | undefined; unavailable: string[] | undefined }) {
  if (errors === undefined && unavailable === undefined) return null;
  const lines = unavailable ?? [errors].flat().map((message) => `Numbers selected: ${message}`);
  return (
    <div class="field-error" id="phone_numbers-error" role="alert">
      <ul>
        {lines.map((line) => (
          <li>{line}</li>
        ))}
      </ul>
    </div>
  );
}

/**
 * The API's create body from the form: the numbers ticked, or the pair of the search and a quantity (the button
 * pressed says which), and the hold.
 */
function reservationBodyFrom(c: Context, form: Record<string, string>, ticked: string[]) {
  const hold = holdOf(form);
  if (form.by === "quantity") {
    const [country_code, number_type] = (c.req.query("pair") ?? "").split("/");
    return createReservationBody.safeParse({
      country_code: country_code || undefined,
      number_type: number_type || undefined,
      quantity: formInteger(form.quantity) ?? "",
      starts_with: form.starts_with?.trim() ? form.starts_with.trim() : undefined,
      ...hold,
    });
  }
  return createReservationBody.safeParse({ phone_numbers: ticked, ...hold });
}

/** The refusal's errors beside the form's fields; a numbers_unavailable names each number (its pointer's index). */
function reservingOf(problem: Problem, values: Record<string, string>, ticked: string[]): Reserving {
  const errors = problemFieldLists(problem);
  if (problem.code !== "numbers_unavailable") return { values, errors };
  const unavailable = (problem.errors ?? []).map((error) => {
    const index = Number(error.pointer.split("/")[2]);
    return `${ticked[index] ?? error.pointer} ${error.message}`;
  });
  return { values, errors, unavailable };
}

export const findNumbersPages = createRouter<PortalEnv>()
  .get("/find-numbers", (c) => findPage(c))
  .post("/find-numbers/reserve", async (c) => {
    const posted = await readForm(c);
    const ticked = posted.list("phone_numbers");
    const values = { ...posted.fields, phone_numbers: ticked.join(",") };
    const parsed = reservationBodyFrom(c, posted.fields, ticked);
    if (!parsed.success) return findPage(c, { values, errors: fieldMessages(parsed.error.issues) }, 400);
    const created = await reserveNumbers.run(workOf(c), c.var.visitor.customer.id, toReservationRequest(parsed.data));
    if (!created.ok) return findPage(c, reservingOf(created.problem, values, ticked), created.problem);
    const reservation = toReservation(created.value.reservation, created.value.phoneNumbers, c.var.now);
    return c.redirect(`${reservationHref(reservation)}?done=reserved`, 303);
  });
