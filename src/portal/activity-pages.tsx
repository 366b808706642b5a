// Settings → Activity: who changed what in the account (its keys, team and webhook endpoints, and the operator's
// changes, the operator's people shown only as "the operator"), newest first, with the audit log's filters.

import { customerAuditQuery, toAuditEvent, toAuditListQuery } from "../audit/schemas.ts";
import { AUDIT_ACTIONS, AUDIT_TARGET_TYPES, type AuditEventWithSlug, listAuditEvents } from "../audit/store.ts";
import { pageWindow } from "../db/paging.ts";
import type { PortalEnv } from "../env.ts";
import { pageMeta } from "../http/pagination.ts";
import { createRouter } from "../http/router.ts";
import { capitalised, words } from "../lib/words.ts";
import { Pager, Table } from "../ui/components.tsx";
import { dateTime, withQuery } from "../ui/format.ts";
import { FilterForm, listFilters, Select, TextInput } from "../ui/forms.tsx";
import { renderPage } from "../ui/renderer.tsx";
import { requireSettingsRole } from "./settings-common.tsx";

const ACTIVITY_PATH = "/portal/settings/activity";

type ShownEvent = ReturnType<typeof toAuditEvent>;

/** Who acted, as the account reads it. */
function actorOf(event: ShownEvent): string {
  switch (event.actor.type) {
    case "operator":
      return "The operator";
    case "user":
      return event.actor.email ?? "A teammate";
    case "api_key":
      return `API key ${event.actor.id ?? ""}`;
    default:
      return capitalised(event.actor.type);
  }
}

/** The fields whose values are the service's own (a status, a role, a type), which read in words; what people typed
 * (a name, a description, a URL) reads as they typed it. */
const STORED_VALUE_FIELDS = new Set(["status", "role", "type", "verification_type", "number_type"]);

/** A change as people read it: "status: pending → processing", "role: member → admin". */
function changesOf(event: ShownEvent): string {
  const shown = (field: string, value: unknown) =>
    value === null || value === undefined ? "—" : STORED_VALUE_FIELDS.has(field) ? words(String(value)) : String(value);
  return Object.entries(event.changes)
    .map(([field, [before, after]]) => `${words(field)}: ${shown(field, before)} → ${shown(field, after)}`)
    .join("; ");
}

function ActivityFilters({ values, errors }: { values: Record<string, string>; errors: Record<string, string> }) {
  return (
    <FilterForm action={ACTIVITY_PATH} values={values}>
      <Select
        name="action"
        label="What happened"
        value={values.action}
        blank="Anything"
        options={AUDIT_ACTIONS.map((action) => [action, capitalised(action.replace(".", " "))] as const)}
        error={errors.action}
      />
      <Select
        name="target_type"
        label="About"
        value={values.target_type}
        blank="Anything"
        options={AUDIT_TARGET_TYPES.map((type) => [type, capitalised(type)] as const)}
        error={errors.target_type}
      />
      <TextInput name="from" label="From" type="date" value={values.from} error={errors.from} />
      <TextInput name="to" label="To" type="date" value={values.to} error={errors.to} />
    </FilterForm>
  );
}

export const activityPages = createRouter<PortalEnv>()
  .use("/settings/activity", requireSettingsRole)
  .get("/settings/activity", async (c) => {
    const page = { title: "Activity", section: "activity" };
    const filters = listFilters(c, customerAuditQuery, page, ActivityFilters);
    if ("refused" in filters) return filters.refused;
    const { raw, query } = filters;
    const window = pageWindow(query.page, query.limit);
    const list = await listAuditEvents(c.var.db, toAuditListQuery(query), window, c.var.visitor.customer.id);
    const events = list.rows.map((row: AuditEventWithSlug) => toAuditEvent(row, true));
    return renderPage(
      c,
      page,
      <>
        <h1>Activity</h1>
        <p class="muted">Every change of the account's keys, team and webhooks, and the operator's changes to it.</p>
        <ActivityFilters values={raw} errors={{}} />
        {events.length === 0 ? (
          <div class="card empty">
            <p>Nothing matches: clear the filters.</p>
          </div>
        ) : (
          <Table
            label="Activity"
            rows={events}
            columns={[
              { label: "When", cell: (event) => dateTime(event.created_at) },
              { label: "Who", cell: actorOf },
              { label: "What", cell: (event) => capitalised(event.action.replace(".", " ")) },
              { label: "About", cell: (event) => `${words(event.target.type)} ${event.target.id}` },
              { label: "Changes", cell: changesOf },
            ]}
          />
        )}
        <Pager
          meta={pageMeta(window, list.total)}
          noun="change"
          hrefOf={(n) => `${ACTIVITY_PATH}${withQuery(raw, { page: String(n) })}`}
        />
      </>,
    );
  });
