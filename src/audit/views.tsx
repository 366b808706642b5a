// Rendering of audit events and the log's filters, shared by the portal's Activity page and the console's audit log.
import type { z } from "@hono/zod-openapi";
import type { Child } from "hono/jsx";
import { AUDIT_ACTIONS, AUDIT_TARGET_TYPES } from "../db/audit.ts";
import { EVERY_EVENT_TYPE, type EventType } from "../db/schema.ts";
import { EVENT_TYPE_WORDS } from "../events/words.ts";
import { capitalised, words } from "../lib/words.ts";
import { formatOrderNumber } from "../orders/schemas.ts";
import { type Column, Table, Time } from "../ui/components.tsx";
import { dateTime, plural } from "../ui/format.ts";
import { MultiChoice, Select } from "../ui/forms.tsx";
import type { AuditNames } from "./names.ts";
import type { auditEventSchema } from "./schemas.ts";

type AuditEvent = z.infer<typeof auditEventSchema>;
type AuditAction = (typeof AUDIT_ACTIONS)[number];
type AuditTargetType = (typeof AUDIT_TARGET_TYPES)[number];

/** Display labels of audit actions. */
const ACTION_WORDS: Record<AuditAction, string> = {
  "customer.created": "Account created",
  "api_key.created": "API key created",
  "api_key.revoked": "API key revoked",
  "catalog.pair_added": "Pair made orderable",
  "catalog.pair_removed": "Pair taken out of the catalog",
  "catalog.pair_updated": "Pair settings changed",
  "requirements.changed": "Requirements changed",
  "order.status_changed": "Order status changed",
  "order.numbers_allocated": "Numbers allocated to an order",
  "kyc.reviewed": "Verification reviewed",
  "kyc_profile.reviewed": "Profile reviewed",
  "kyc_profile.numbers_attached": "Numbers attached to a profile",
  "kyc_profile.numbers_detached": "Numbers detached from a profile",
  "kyc.document_viewed": "Document viewed by staff",
  "number.released": "Number released",
  "number.restored": "Number restored",
  "number.suspended": "Number suspended",
  "number.resumed": "Number resumed",
  "number.protection_changed": "Release protection changed",
  "user.created": "User added",
  "user.updated": "User changed",
  "user.invited": "Invitation link issued",
  "staff.changed": "Staff member changed",
  "stock.imported": "Stock imported",
  "stock.removed": "Number removed from the stock",
  "stock.quarantine_overridden": "Quarantined numbers allocated",
  "webhook_endpoint.created": "Webhook endpoint created",
  "webhook_endpoint.updated": "Webhook endpoint changed",
  "webhook_endpoint.deleted": "Webhook endpoint deleted",
  "webhook_endpoint.secret_rotated": "Signing secret rotated",
};

/** Display labels of audit target types. */
const TARGET_WORDS: Record<AuditTargetType, string> = {
  customer: "Account",
  api_key: "API key",
  catalog_pair: "Orderable pair",
  order: "Order",
  number: "Number",
  kyc: "Number's verification",
  kyc_profile: "Profile",
  document: "Document",
  user: "User",
  staff: "Staff member",
  stock_import: "Stock import",
  stock_number: "Number in stock",
  webhook_endpoint: "Webhook endpoint",
};

/** The changes of no account (the catalog, the staff, the stock): never in an account's own log. */
const NOBODYS_TARGETS: readonly AuditTargetType[] = ["catalog_pair", "staff", "stock_import", "stock_number"];
const NOBODYS_ACTIONS: readonly AuditAction[] = [
  "catalog.pair_added",
  "catalog.pair_removed",
  "catalog.pair_updated",
  "requirements.changed",
  "staff.changed",
  "stock.imported",
  "stock.removed",
  "stock.quarantine_overridden",
];

/** Labels for changed fields whose name is not readable as it is. */
const FIELD_WORDS: Record<string, string> = {
  url: "URL",
  email: "E-mail",
  event_types: "Event types",
  revoked_at: "Revoked",
  invitation_expires_at: "Invitation valid until",
  previous_secret_expires_at: "Old secret signs until",
  number_count: "Numbers attached",
  fulfilled_quantity: "Fulfilled",
  rejection_reasons: "Reasons",
  invalid: "Rows refused",
  imported_at: "Imported",
};

/** Fields holding the service's enum values, shown through words(); free text is shown verbatim. */
const STORED_VALUE_FIELDS = new Set([
  "status",
  "role",
  "type",
  "verification_type",
  "number_type",
  "verification_types",
  "suspension_reason",
  "release_reason",
]);

/** Fields holding ISO timestamps. Matched by name, not by value, so a key named "2025-01-01T00:00 deploy" stays a name. */
const TIME_FIELDS = new Set(["revoked_at", "invitation_expires_at", "previous_secret_expires_at", "imported_at"]);

/** An endpoint's event types (stored as JSON text) as labels. */
function eventTypesWords(value: unknown): string {
  const types: unknown = typeof value === "string" ? JSON.parse(value) : value;
  if (!Array.isArray(types)) return String(value);
  if (types.includes(EVERY_EVENT_TYPE)) return "every event type";
  return types
    .map((type: string) => (Object.hasOwn(EVENT_TYPE_WORDS, type) ? EVENT_TYPE_WORDS[type as EventType] : type))
    .join("; ");
}

/** Formats one value of a change for display. */
function valueWords(field: string, value: unknown): string {
  if (value === null || value === undefined) return "—";
  if (field === "event_types") return eventTypesWords(value);
  if (typeof value === "boolean") return value ? "yes" : "no";
  if (typeof value === "number") return value.toLocaleString("en-US");
  if (typeof value === "string") {
    if (TIME_FIELDS.has(field)) return dateTime(value);
    return STORED_VALUE_FIELDS.has(field) ? words(value) : value;
  }
  if (Array.isArray(value)) return value.length === 0 ? "none" : value.map((item) => valueWords(field, item)).join("; ");
  const object = value as Record<string, unknown>;
  // A reviewer's reason: "Document illegible: the scan is cut off".
  if (typeof object.code === "string")
    return object.note ? `${capitalised(object.code)}: ${object.note}` : capitalised(object.code);
  // An entry that names itself (a requirement's document).
  const named = object.description ?? object.name;
  if (typeof named === "string") return named;
  return Object.entries(object)
    .map(([key, item]) => `${words(key)}: ${valueWords(key, item)}`)
    .join("; ");
}

/** Each change on a line: "Status: pending → processing"; a value set where there was none reads alone. */
function ChangeLines({ changes }: { changes: AuditEvent["changes"] }) {
  const lines = Object.entries(changes)
    // A field a creation left empty says nothing.
    .filter(([, [before, after]]) => before !== null || after !== null)
    .map(([field, [before, after]]) => {
      const label = FIELD_WORDS[field] ?? capitalised(field);
      const text = before === null ? valueWords(field, after) : `${valueWords(field, before)} → ${valueWords(field, after)}`;
      return `${label}: ${text}`;
    });
  if (lines.length === 0) return <span class="muted">—</span>;
  return (
    <ul class="changes">
      {lines.map((line) => (
        <li>{line}</li>
      ))}
    </ul>
  );
}

/** A person by name, with the e-mail they sign in with. */
const person = (name: string | undefined, email: string) => (name ? `${name} (${email})` : email);

/** Who acted, by name. */
function actorWords(event: AuditEvent, names: AuditNames): string {
  const { actor } = event;
  switch (actor.type) {
    case "operator":
      return "The operator";
    case "token":
      return "The admin token";
    case "staff":
      return person(names.staff.get(actor.email ?? ""), actor.email ?? "");
    case "user":
      return person(names.users.get(actor.id ?? "")?.name, actor.email ?? "");
    case "api_key": {
      const name = names.apiKeys.get(actor.id ?? "");
      return name === undefined ? "An API key" : `API key “${name}”`;
    }
  }
}

/** A stock import by its time and what it brought: "2026-11-28 09:30 UTC (3 numbers)". */
function importName(event: AuditEvent): string {
  const imported = event.changes.imported?.[1];
  const time = dateTime(event.created_at);
  return typeof imported === "number" ? `${time} (${plural(imported, "number")})` : time;
}

/** The display name of a change's target; undefined once the target is deleted. */
function targetName(event: AuditEvent, names: AuditNames): string | undefined {
  const { type, id } = event.target;
  switch (type) {
    case "customer":
      return names.accounts.get(id);
    case "api_key": {
      const name = names.apiKeys.get(id);
      return name === undefined ? undefined : `“${name}”`;
    }
    case "catalog_pair": {
      const [country, numberType] = id.split("/");
      return `${country} ${words(numberType ?? "")}`;
    }
    case "order": {
      const seq = names.orders.get(id);
      return seq === undefined ? undefined : formatOrderNumber(seq);
    }
    case "number":
      return names.numbers.get(id);
    case "kyc":
      return names.verifications.get(id);
    case "kyc_profile": {
      const name = names.profiles.get(id);
      return name === undefined ? undefined : `“${name}”`;
    }
    case "document": {
      const name = names.documents.get(id);
      return name === undefined ? undefined : `“${name}”`;
    }
    case "user": {
      const user = names.users.get(id);
      return user && person(user.name, user.email);
    }
    case "staff":
      return person(names.staff.get(id), id);
    case "stock_import":
      return importName(event);
    case "stock_number":
      return id;
    case "webhook_endpoint":
      return names.endpoints.get(id);
  }
}

/** Where a set of pages shows what a change is about (the portal its own pages, the console its own), if it does. */
export type TargetHref = (target: AuditEvent["target"]) => string | undefined;

function Target({ event, names, hrefOf }: { event: AuditEvent; names: AuditNames; hrefOf: TargetHref }) {
  const kind = TARGET_WORDS[event.target.type];
  const name = targetName(event, names);
  if (name === undefined) return <>{`${kind} no longer there`}</>;
  const href = hrefOf(event.target);
  return (
    <>
      {kind} {href ? <a href={href}>{name}</a> : name}
    </>
  );
}

/**
 * A page of audit events, newest first: when, who, what happened, what about, and each change on a line; `account`,
 * the console's, adds the account a change is about.
 */
export function AuditLog({
  label,
  events,
  names,
  hrefOf,
  account,
}: {
  label: string;
  events: readonly AuditEvent[];
  names: AuditNames;
  hrefOf: TargetHref;
  account?: (event: AuditEvent) => Child;
}) {
  const columns: Column<AuditEvent>[] = [
    { label: "When", cell: (event) => <Time time={event.created_at} /> },
    { label: "Who", cell: (event) => actorWords(event, names) },
    { label: "What", cell: (event) => ACTION_WORDS[event.action] },
    { label: "About", cell: (event) => <Target event={event} names={names} hrefOf={hrefOf} /> },
    ...(account ? [{ label: "Account", cell: account }] : []),
    { label: "Changes", cell: (event) => <ChangeLines changes={event.changes} /> },
  ];
  return <Table label={label} rows={events} columns={columns} />;
}

/**
 * The log's filters of what happened (any of several, the API's `action` list) and what about (`target_type`), in
 * words; `ofAccount`: only what an account's own log can hold.
 */
export function AuditKindFilters({
  values,
  errors,
  ofAccount,
}: {
  values: Record<string, string>;
  errors: Record<string, string>;
  ofAccount: boolean;
}) {
  const actions = AUDIT_ACTIONS.filter((action) => !(ofAccount && NOBODYS_ACTIONS.includes(action)));
  const targets = AUDIT_TARGET_TYPES.filter((type) => !(ofAccount && NOBODYS_TARGETS.includes(type)));
  return (
    <>
      <MultiChoice
        name="action"
        label="What happened"
        value={values.action}
        error={errors.action}
        options={actions.map((action) => [action, ACTION_WORDS[action]] as const)}
      />
      <Select
        name="target_type"
        label="About"
        value={values.target_type}
        blank="Anything"
        options={targets.map((type) => [type, TARGET_WORDS[type]] as const)}
        error={errors.target_type}
      />
    </>
  );
}
