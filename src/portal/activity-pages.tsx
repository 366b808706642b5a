// The portal's Activity page: the account's audit log, rendered by src/audit/views.tsx.

import { auditNames } from "../audit/names.ts";
import { customerAuditQuery, toAuditEvent, toAuditListQuery } from "../audit/schemas.ts";
import { listAuditEvents } from "../audit/store.ts";
import { AuditKindFilters, AuditLog, type TargetHref } from "../audit/views.tsx";
import { pageWindow } from "../db/paging.ts";
import type { PortalEnv } from "../env.ts";
import { pageMeta } from "../http/pagination.ts";
import { createRouter } from "../http/router.ts";
import { Pager } from "../ui/components.tsx";
import { withQuery } from "../ui/format.ts";
import { TextInput } from "../ui/forms.tsx";
import { FilterForm, listFilters } from "../ui/list-filters.tsx";
import { renderPage } from "../ui/renderer.tsx";
import { requireSettingsRole } from "./settings-common.tsx";

const ACTIVITY_PATH = "/portal/settings/activity";

function ActivityFilters({ values, errors }: { values: Record<string, string>; errors: Record<string, string> }) {
  return (
    <FilterForm action={ACTIVITY_PATH} values={values}>
      <AuditKindFilters values={values} errors={errors} ofAccount={true} />
      <TextInput name="from" label="From" type="date" value={values.from} error={errors.from} />
      <TextInput name="to" label="To" type="date" value={values.to} error={errors.to} />
    </FilterForm>
  );
}

/** The portal's page of what a change is about, where it has one. */
const portalHref: TargetHref = ({ type, id }) => {
  switch (type) {
    case "order":
      return `/portal/orders/${id}`;
    case "kyc_profile":
      return `/portal/profiles/${id}`;
    case "webhook_endpoint":
      return `/portal/settings/webhooks/${id.replace(/^we_/, "")}`;
    default:
      return undefined;
  }
};

export const activityPages = createRouter<PortalEnv>()
  .use("/settings/activity", requireSettingsRole)
  .get("/settings/activity", async (c) => {
    const page = { title: "Activity", section: "activity" };
    const filters = listFilters(c, customerAuditQuery, page, ActivityFilters);
    if ("answer" in filters) return filters.answer;
    const { raw, query } = filters;
    const customerId = c.var.visitor.customer.id;
    const window = pageWindow(query.page, query.limit);
    const list = await listAuditEvents(c.var.db, toAuditListQuery(query), window, customerId);
    const names = await auditNames(c.var.db, list.rows, customerId);
    const events = list.rows.map((row) => toAuditEvent(row, true));
    return renderPage(
      c,
      page,
      <>
        <h1>Activity</h1>
        <p class="muted">Every change of the account's keys, team, webhooks and profiles, and the operator's changes to it.</p>
        <ActivityFilters values={raw} errors={{}} />
        {events.length === 0 ? (
          <div class="card empty">
            <p>Nothing matches: clear the filters.</p>
          </div>
        ) : (
          <AuditLog label="Activity" events={events} names={names} hrefOf={portalHref} />
        )}
        <Pager
          meta={pageMeta(window, list.total)}
          noun="change"
          hrefOf={(n) => `${ACTIVITY_PATH}${withQuery(raw, { page: String(n) })}`}
        />
      </>,
    );
  });
