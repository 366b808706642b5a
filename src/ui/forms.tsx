// Form handling for the portal and console: reading posted forms as the API's schemas take them, field errors, labelled
// controls and sorting (a list's filters: list-filters.tsx).

import type { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { Child } from "hono/jsx";
import { formParts } from "../http/multipart.ts";
import { isMultipart } from "../http/request-body.ts";
import { decodeUtf8 } from "../lib/content.ts";
import type { Problem } from "../lib/problem.ts";
import { CSRF_FIELD, FieldError } from "./components.tsx";

/** One message per field (the first), keyed by the field's top-level name; issues about the whole form under "". */
export function fieldMessages(issues: readonly z.core.$ZodIssue[]): Record<string, string> {
  const messages: Record<string, string> = {};
  for (const issue of issues) {
    const names = issue.code === "unrecognized_keys" ? issue.keys : [String(issue.path[0] ?? "")];
    for (const name of names) messages[name] ??= issue.message;
  }
  return messages;
}

/**
 * One id typed or chosen in a form, parsed by the API's id schema: the id, or the field error ("is required" when
 * empty, else the schema's message).
 */
export function parseIdField<S extends z.ZodType>(schema: S, value: string): { id: z.output<S> } | { error: string } {
  const parsed = schema.safeParse(value);
  if (parsed.success) return { id: parsed.data };
  return { error: value === "" ? "is required" : (fieldMessages(parsed.error.issues)[""] ?? "is not valid") };
}

/** A problem's field errors by top-level field name, as fieldMessages gives a schema's: to show each beside its field. */
export function problemFields(problem: Problem): Record<string, string> {
  const messages: Record<string, string> = {};
  for (const error of problem.errors ?? []) messages[error.pointer.replace(/^\//, "").split("/")[0] || ""] ??= error.message;
  return messages;
}

/**
 * A problem's field errors by top-level field name, every one of them: one message as text, several as a list (a
 * requirements_not_met refusal names each unmet requirement on the same field), to show all beside their field.
 */
export function problemFieldLists(problem: Problem): Record<string, string | string[]> {
  const lists: Record<string, string[]> = {};
  for (const error of problem.errors ?? []) {
    const name = error.pointer.replace(/^\//, "").split("/")[0] || "";
    lists[name] = [...(lists[name] ?? []), error.message];
  }
  return Object.fromEntries(Object.entries(lists).map(([name, list]) => [name, list.length === 1 ? list[0]! : list]));
}

/** A posted form's text: each field's first value, every value of a repeated field (checkboxes), the CSRF token. */
interface PostedForm {
  /** Without the CSRF token, which is the guard's, not the action's. */
  fields: Record<string, string>;
  list(name: string): string[];
  token: string | undefined;
}

/**
 * The posted form's text fields, read once however often asked: urlencoded (read in bounded work by the pages' body
 * guard), or the text parts of a multipart form (an upload's, by the same cached parse its route reads the file with;
 * a part that is not UTF-8 reads as empty).
 */
export async function readForm(c: Context): Promise<PostedForm> {
  const entries: [string, string][] = isMultipart(c.req.raw)
    ? (await formParts(c.req.raw))
        .filter((part) => part.filename === undefined)
        .map((part) => [part.name, decodeUtf8(part.data) ?? ""])
    : Object.entries(await c.req.parseBody({ all: true })).flatMap(([name, value]) =>
        [value].flat().flatMap((item) => (typeof item === "string" ? [[name, item] as [string, string]] : [])),
      );
  const fields: Record<string, string> = {};
  for (const [name, value] of entries) if (name !== CSRF_FIELD) fields[name] ??= value;
  return {
    fields,
    list: (name) => entries.filter(([key]) => key === name).map(([, value]) => value),
    token: entries.find(([name]) => name === CSRF_FIELD)?.[1],
  };
}

/** A whole number typed into a form as the API's JSON would carry it; anything else stays text for the schema to refuse. */
export function formInteger(value: string | undefined): number | string | undefined {
  if (value === undefined || value.trim() === "") return undefined;
  return /^\s*-?\d+\s*$/.test(value) ? Number(value) : value;
}

interface FieldProps {
  name: string;
  label: string;
  /** The control's id, when its name alone is not unique on the page (it defaults to the name). */
  id?: string | undefined;
  /** The field's error, or a list when it broke several rules. */
  error?: FieldErrorText;
  hint?: string | undefined;
}

type FieldErrorText = string | readonly string[] | undefined;

/** Whether a field has an error to show. */
function hasError(error: FieldErrorText): boolean {
  return typeof error === "string" ? error !== "" : (error?.length ?? 0) > 0;
}

/** The ids a control's aria-describedby names: its error, then its hint. */
function describedBy(id: string, error: FieldErrorText, hint: string | undefined): string | undefined {
  const ids = [hasError(error) ? `${id}-error` : undefined, hint ? `${id}-hint` : undefined].filter(Boolean);
  return ids.length > 0 ? ids.join(" ") : undefined;
}

/** What every control of a field carries: its id, and its error and hint tied to it. */
function controlAttributes({ name, id = name, error, hint }: FieldProps) {
  return {
    name,
    id,
    "aria-invalid": hasError(error) ? ("true" as const) : undefined,
    "aria-describedby": describedBy(id, error, hint),
  };
}

/**
 * A field's error text: a schema message follows the label ("Quantity must be at least 1"); a full sentence ("The
 * image states 72 DPI; …") stands alone.
 */
function errorBeside(label: string, error: string): string {
  return /^[A-Z]/.test(error) ? error : `${label} ${error}`;
}

/** What follows a control: its hint, then its error (errorBeside). */
function HintAndError({
  id,
  label,
  hint,
  error,
}: {
  id: string;
  label: string;
  hint?: string | undefined;
  error?: FieldErrorText;
}) {
  return (
    <>
      {hint ? (
        <p class="hint muted" id={`${id}-hint`}>
          {hint}
        </p>
      ) : null}
      {typeof error === "string" || error === undefined ? (
        <FieldError id={`${id}-error`} message={error && errorBeside(label, error)} />
      ) : error.length > 0 ? (
        <div class="field-error" id={`${id}-error`}>
          <p class="field-error">{label}:</p>
          <ul>
            {error.map((message) => (
              <li>{message}</li>
            ))}
          </ul>
        </div>
      ) : null}
    </>
  );
}

/**
 * A field: the label (which alone names the control, so a screen reader says "Country", not "Country 2 letters, e.g.
 * US"), the control, then its hint and its error beside it, both outside the label and named by aria-describedby.
 */
function Field({ name, id = name, label, error, hint, children }: FieldProps & { children: Child }) {
  return (
    <div class="field">
      <label for={id}>{label}</label>
      {children}
      <HintAndError id={id} label={label} hint={hint} error={error} />
    </div>
  );
}

interface InputProps extends FieldProps {
  value?: string | undefined;
  type?: string;
  required?: boolean;
  min?: string;
  max?: string;
  minlength?: number;
  maxlength?: number;
  autocomplete?: string;
  inputmode?: "numeric" | "email" | "tel" | "text";
}

export function TextInput(props: InputProps) {
  const { value, type = "text", required, min, max, minlength, maxlength, autocomplete, inputmode } = props;
  // A password is never sent back into a page.
  const shown = type === "password" || type === "file" ? undefined : (value ?? "");
  return (
    <Field {...props}>
      <input
        {...controlAttributes(props)}
        type={type}
        value={shown}
        required={required}
        min={min}
        max={max}
        minlength={minlength}
        maxlength={maxlength}
        autocomplete={autocomplete}
        inputmode={inputmode}
      />
    </Field>
  );
}

export function TextArea(props: FieldProps & { value?: string | undefined; maxlength?: number; rows?: number }) {
  return (
    <Field {...props}>
      <textarea {...controlAttributes(props)} rows={props.rows ?? 3} maxlength={props.maxlength}>
        {props.value ?? ""}
      </textarea>
    </Field>
  );
}

type Options = readonly (readonly [string, string])[];

/**
 * A select; `options` are [value, label] pairs, and a blank first option when `blank` names it. With `groups`, the
 * options come in labelled groups instead, and `group` names the one whose option `value` is chosen (a value may
 * recur in several groups).
 */
export function Select(
  props: FieldProps & {
    value?: string | undefined;
    options?: Options;
    groups?: readonly { label: string; options: Options }[];
    group?: string | undefined;
    blank?: string;
  },
) {
  const { value, options = [], groups, group, blank } = props;
  const optionsOf = (list: Options, chosen: boolean) =>
    list.map(([optionValue, optionLabel]) => (
      <option value={optionValue} selected={chosen && optionValue === value}>
        {optionLabel}
      </option>
    ));
  return (
    <Field {...props}>
      <select {...controlAttributes(props)}>
        {blank !== undefined ? <option value="">{blank}</option> : null}
        {groups
          ? groups.map((g) => (
              <optgroup label={g.label} data-group={g.label}>
                {optionsOf(g.options, g.label === group)}
              </optgroup>
            ))
          : optionsOf(options, true)}
      </select>
    </Field>
  );
}

/** Checkboxes' choices: [value, what its label says, and what follows the label outside it (an identifier)]. */
type CheckOptions = readonly (readonly [value: string, label: string, aside?: Child])[];

/**
 * A group of checkboxes under one legend (its choices in labelled groups of their own, with `groups`), its hint and
 * error after the group, named by the group's aria-describedby.
 */
export function Checkboxes(
  props: FieldProps & {
    values: readonly string[];
    options?: CheckOptions;
    groups?: readonly { label: string; options: CheckOptions }[];
  },
) {
  const { name, id = name, label, error, hint, values, options = [], groups } = props;
  const box = (value: string, text: string) => (
    <label class="check">
      <input type="checkbox" name={name} value={value} checked={values.includes(value)} />
      {text}
    </label>
  );
  // The label names the choice alone; an aside follows it, outside.
  const boxes = (list: CheckOptions) =>
    list.map(([value, text, aside]) =>
      aside === undefined ? (
        box(value, text)
      ) : (
        <div class="check-row">
          {box(value, text)} {aside}
        </div>
      ),
    );
  return (
    <fieldset
      class="checks"
      id={id}
      aria-invalid={hasError(error) ? "true" : undefined}
      aria-describedby={describedBy(id, error, hint)}
    >
      <legend>{label}</legend>
      {groups
        ? groups.map((group) => (
            <fieldset class="checks group">
              <legend>{group.label}</legend>
              {boxes(group.options)}
            </fieldset>
          ))
        : boxes(options)}
      <HintAndError id={id} label={label} hint={hint} error={error} />
    </fieldset>
  );
}

/** Labels of list sort keys. */
const SORT_KEY_LABELS: Record<string, string> = {
  created_at: "Created",
  requested_at: "Requested",
  fulfilled_at: "Fulfilled",
  last_login_at: "Last sign-in",
  order_number: "Order number",
  number_type: "Number type",
  country_code: "Country",
  phone_number: "Phone number",
  quantity: "Quantity",
  status: "Status",
  name: "Name",
  email: "E-mail",
  role: "Role",
};

/** Labels of sort directions. */
const SORT_ORDER_LABELS: Record<string, string> = { desc: "Descending", asc: "Ascending" };

/** A list query's sort_by or sort_order: an enum with its default, as the API's schema declares it. */
type SortParameter = z.ZodDefault<z.ZodEnum<Readonly<Record<string, string>>>>;

/** Sort key and direction selects, built from the API's query schema (keys, directions, defaults). */
export function SortFields({
  query,
  values,
  errors,
}: {
  query: { shape: { sort_by: SortParameter; sort_order: SortParameter } };
  values: Record<string, string>;
  errors: Record<string, string>;
}) {
  const { sort_by: sortBy, sort_order: sortOrder } = query.shape;
  return (
    <>
      <Select
        name="sort_by"
        label="Sort by"
        value={values.sort_by ?? sortBy.def.defaultValue}
        options={sortBy.unwrap().options.map((key) => [key, SORT_KEY_LABELS[key] ?? key] as const)}
        error={errors.sort_by}
      />
      <Select
        name="sort_order"
        label="Sort order"
        value={values.sort_order ?? sortOrder.def.defaultValue}
        options={sortOrder.unwrap().options.map((order) => [order, SORT_ORDER_LABELS[order] ?? order] as const)}
        error={errors.sort_order}
      />
    </>
  );
}

/** A list's page size (the `limit` its query takes). */
export function PerPageField({ values, errors }: { values: Record<string, string>; errors: Record<string, string> }) {
  return <TextInput name="limit" label="Per page" type="number" value={values.limit} error={errors.limit} />;
}

/** A filter by a range of days: `<name>_from` and `<name>_to`, labelled "<label> from" and "<label> to". */
export function DayRangeFields({
  name,
  label,
  values,
  errors,
}: {
  name: string;
  label: string;
  values: Record<string, string>;
  errors: Record<string, string>;
}) {
  return (
    <>
      <TextInput
        name={`${name}_from`}
        label={`${label} from`}
        type="date"
        value={values[`${name}_from`]}
        error={errors[`${name}_from`]}
      />
      <TextInput
        name={`${name}_to`}
        label={`${label} to`}
        type="date"
        value={values[`${name}_to`]}
        error={errors[`${name}_to`]}
      />
    </>
  );
}

/** The comma list a filter's value holds (as the API's queries take them): its items, trimmed, blanks dropped. */
function listValues(value: string | undefined): string[] {
  return (value ?? "")
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item !== "");
}

/**
 * A filter of several values: checkboxes under the field's legend, folded behind a summary of what is chosen ("Any"
 * when nothing is) and open while the filter is in use or refused. A GET form sends each ticked value under `name`;
 * listFilters joins them into the API's comma list, which `value` holds. A chosen value that is not among `options`
 * (from a link) is offered too, ticked, so the error beside it can be undone.
 */
export function MultiChoice(props: FieldProps & { value: string | undefined; options: Options; none?: string }) {
  const { name, id = name, label, error, hint, value, none = "Any" } = props;
  const chosen = listValues(value);
  const options = [...props.options];
  for (const item of chosen) if (!options.some(([option]) => option === item)) options.push([item, item]);
  const chosenLabels = options.filter(([option]) => chosen.includes(option)).map(([, text]) => text);
  return (
    <fieldset
      class="field multi"
      id={id}
      aria-invalid={hasError(error) ? "true" : undefined}
      aria-describedby={describedBy(id, error, hint)}
    >
      <legend>{label}</legend>
      <details class="choices" open={chosen.length > 0 || hasError(error)}>
        <summary>{chosenLabels.length > 0 ? chosenLabels.join(", ") : none}</summary>
        <div class="options">
          {options.map(([option, text]) => (
            <label class="check">
              <input type="checkbox" name={name} value={option} checked={chosen.includes(option)} />
              {text}
            </label>
          ))}
        </div>
      </details>
      <HintAndError id={id} label={label} hint={hint} error={error} />
    </fieldset>
  );
}
