// A list page's filters: the form folded on small screens, its status and pair fields, and the query it reads (judged
// by the API's list schema, so a page filters exactly as the API does).
import type { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { Child } from "hono/jsx";
import { capitalised, countryName } from "../lib/words.ts";
import { Notice } from "./components.tsx";
import { fieldMessages, MultiChoice } from "./forms.tsx";
import { type PageProps, renderPage } from "./renderer.tsx";

/** A (country, type) pair a list's filters offer, e.g. the catalog's or the stock's. */
export interface FilterPair {
  countryCode: string;
  numberType: string;
}

/** What a list's filters are drawn with: the values in use and each one's error. */
export interface FilterProps {
  values: Record<string, string>;
  errors: Record<string, string>;
}

/** A list's filters that offer pairs (PairFilterFields). */
export type PairFilterProps = FilterProps & { pairs: readonly FilterPair[] };

/** A list's `status` filter (the API's comma list): a MultiChoice of the statuses given; `none`, what no choice means. */
export function StatusFilterField({
  values,
  errors,
  statuses,
  none,
}: FilterProps & { statuses: readonly string[]; none?: string }) {
  return (
    <MultiChoice
      name="status"
      label="Statuses"
      value={values.status}
      error={errors.status}
      options={statuses.map((status) => [status, capitalised(status)] as const)}
      none={none}
    />
  );
}

/**
 * Country and number type filters (MultiChoice each, for the API's comma lists `country_code` and `number_type`),
 * offering only the countries and types of `pairs`.
 */
export function PairFilterFields({ values, errors, pairs }: PairFilterProps) {
  const countries = [...new Set(pairs.map((pair) => pair.countryCode))]
    .map((code) => [code, `${countryName(code)} (${code})`] as const)
    .sort(([, a], [, b]) => a.localeCompare(b));
  const types = [...new Set(pairs.map((pair) => pair.numberType))].sort().map((type) => [type, capitalised(type)] as const);
  return (
    <>
      <MultiChoice
        name="country_code"
        label="Countries"
        value={values.country_code}
        error={errors.country_code}
        options={countries}
      />
      <MultiChoice
        name="number_type"
        label="Number types"
        value={values.number_type}
        error={errors.number_type}
        options={types}
      />
    </>
  );
}

/** A list query's parameters that choose a page or an order rather than filter. */
const NOT_FILTERS = ["page", "limit", "sort_by", "sort_order"];

/**
 * A list's filter form, folded behind one "Filters" control on small screens (open when a filter is in use); on wider
 * screens it is always open (styles.ts).
 */
export function FilterForm({ action, values, children }: { action: string; values: Record<string, string>; children: Child }) {
  const inUse = Object.keys(values).filter((name) => !NOT_FILTERS.includes(name)).length;
  return (
    <details class="fold" open={inUse > 0}>
      <summary>{inUse > 0 ? `Filters (${inUse} in use)` : "Filters"}</summary>
      <form method="get" action={action} class="filters card" aria-label="Filters">
        {children}
        <div class="actions">
          <button type="submit">Apply</button>
          <a href={action}>Clear</a>
        </div>
      </form>
    </details>
  );
}

/**
 * Normalises typed country codes (" us" to "US") in the named fields, as the API takes them. Filters offer a choice
 * of countries instead.
 */
export function withCountryCodesUppercased(fields: Record<string, string>, names: readonly string[]): Record<string, string> {
  const out = { ...fields };
  for (const name of names) {
    const value = out[name];
    if (value !== undefined) out[name] = value.trim().toUpperCase();
  }
  return out;
}

/** What a list query's field is when absent, when it says (a zod default), as a query string carries it. */
function defaultOf(schema: z.ZodType, name: string): string | undefined {
  const field = (schema as { shape?: Record<string, z.ZodType> }).shape?.[name];
  if (!field || !("defaultValue" in field.def)) return undefined;
  const value: unknown = field.def.defaultValue;
  return value === undefined ? undefined : String(value);
}

/**
 * A list page's query as the API takes it: a parameter sent several times (a MultiChoice's ticked boxes) as one comma
 * list, and what says nothing left out: a browser's empty fields, and a value that is the query's default.
 */
function tidyQuery(c: Context, schema: z.ZodType): Record<string, string> {
  const tidy: Record<string, string> = {};
  for (const [name, sent] of Object.entries(c.req.queries())) {
    if (name === "done") continue;
    const value = sent
      .map((item) => item.trim())
      .filter((item) => item !== "")
      .join(",");
    if (value !== "" && value !== defaultOf(schema, name)) tidy[name] = value;
  }
  return tidy;
}

/**
 * A list page's filters, parsed by the API's own query schema from the page's query string. The page's answer instead
 * (`answer`): a redirect to the tidy address (tidyQuery) when the query string says more than it means, so the address
 * bar and a bookmark hold only the filters in use; or, when they do not parse, the filters with each problem beside its
 * field (400).
 */
export function listFilters<S extends z.ZodType>(
  c: Context,
  schema: S,
  page: PageProps,
  Filters: (props: FilterProps) => Child,
): { raw: Record<string, string>; query: z.output<S> } | { answer: Response | Promise<Response> } {
  const raw = tidyQuery(c, schema);
  // `done` names the notice a redirect left (pageNotice), no filter: the address keeps it, the filters leave it out.
  const done = c.req.query("done");
  const tidy = new URLSearchParams(done ? { ...raw, done } : raw).toString();
  // A GET only: a refused form's page (a POST) keeps the address it was posted to.
  if (c.req.method === "GET" && tidy !== new URL(c.req.url).search.slice(1)) {
    return { answer: c.redirect(`${c.req.path}${tidy ? `?${tidy}` : ""}`, 303) };
  }
  const parsed = schema.safeParse(raw);
  if (parsed.success) return { raw, query: parsed.data };
  return {
    answer: renderPage(
      c,
      page,
      <>
        <h1>{page.title}</h1>
        <Notice kind="error">Some filters cannot be used; each problem is shown beside its field.</Notice>
        <Filters values={raw} errors={fieldMessages(parsed.error.issues)} />
      </>,
      400,
    ),
  };
}
