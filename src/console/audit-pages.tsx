// The console's audit log page.
import type { Context } from "hono";
import { auditNames } from "../audit/names.ts";
import { operatorAuditQuery, toAuditEvent, toAuditListQuery } from "../audit/schemas.ts";
import { listAuditEvents } from "../audit/store.ts";
import { AuditKindFilters, AuditLog, type TargetHref } from "../audit/views.tsx";
import { pageWindow } from "../db/paging.ts";
import type { ConsoleEnv } from "../env.ts";
import { pageMeta } from "../http/pagination.ts";
import { createRouter } from "../http/router.ts";
import { Pager } from "../ui/components.tsx";
import { withQuery } from "../ui/format.ts";
import { PerPageField, TextInput } from "../ui/forms.tsx";
import { FilterForm, listFilters } from "../ui/list-filters.tsx";
import { renderPage } from "../ui/renderer.tsx";
import { ACCOUNTS } from "./accounts-pages.tsx";
import { numberHref } from "./number-moves.tsx";
import { STOCK } from "./stock-pages.tsx";

type C = Context<ConsoleEnv>;
type Messages = Record<string, string>;

const AUDIT = "/ops/audit";

function AuditFilters({ values, errors }: { values: Messages; errors: Messages }) {
  return (
    <FilterForm action={AUDIT} values={values}>
      <TextInput
        name="actor"
        label="Who"
        value={values.actor}
        error={errors.actor}
        hint="An e-mail, or token for the admin token"
      />
      <AuditKindFilters values={values} errors={errors} ofAccount={false} />
      <TextInput
        name="target_id"
        label="About which"
        value={values.target_id}
        error={errors.target_id}
        hint="As the API names it: an id (kyc_…, we_…), a slug, an e-mail or a phone number"
      />
      <TextInput name="customer_slug" label="Account" value={values.customer_slug} error={errors.customer_slug} hint="Its slug" />
      <TextInput name="from" label="From" type="date" value={values.from} error={errors.from} />
      <TextInput name="to" label="To" type="date" value={values.to} error={errors.to} />
      <PerPageField values={values} errors={errors} />
    </FilterForm>
  );
}

/** The console's page of what a change is about, where it has one. */
export const consoleHref: TargetHref = ({ type, id }) => {
  switch (type) {
    case "order":
      return `/ops/orders/${id}`;
    case "customer":
      return `${ACCOUNTS}/${id}`;
    case "kyc":
      return `/ops/reviews/kyc/${id}`;
    case "kyc_profile":
      return `/ops/reviews/profiles/${id}`;
    case "stock_import":
      return `${STOCK}?import_id=${id}`;
    case "number":
      return numberHref(id);
    default:
      return undefined;
  }
};

async function auditPage(c: C) {
  const page = { title: "Audit log", section: "audit" };
  const filters = listFilters(c, operatorAuditQuery, page, AuditFilters);
  if ("answer" in filters) return filters.answer;
  const { raw, query } = filters;
  const window = pageWindow(query.page, query.limit);
  const { rows, total } = await listAuditEvents(c.var.db, toAuditListQuery(query), window);
  const names = await auditNames(c.var.db, rows);
  const meta = pageMeta(window, total);
  const events = rows.map((row) => toAuditEvent(row));
  return renderPage(
    c,
    page,
    <>
      <h1>Audit log</h1>
      <p class="muted">Every change, by anyone, newest first. Nothing here can be changed or deleted.</p>
      <AuditFilters values={raw} errors={{}} />
      {events.length === 0 ? (
        <div class="card empty">
          <p>No events match.</p>
        </div>
      ) : (
        <AuditLog
          label="Audit events"
          events={events}
          names={names}
          hrefOf={consoleHref}
          account={(event) =>
            event.customer_slug ? (
              <a href={`${ACCOUNTS}/${event.customer_slug}`}>{event.customer_slug}</a>
            ) : (
              <span class="muted">—</span>
            )
          }
        />
      )}
      <Pager meta={meta} noun="event" hrefOf={(n) => `${AUDIT}${withQuery(raw, { page: String(n) })}`} />
    </>,
  );
}

/** The audit log page, mounted under /ops. */
export const auditPages = createRouter<ConsoleEnv>().get("/audit", (c) => auditPage(c));
