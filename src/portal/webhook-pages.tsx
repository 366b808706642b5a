// The portal's Webhooks pages, through the API's use cases and schemas (src/webhooks/use-cases.ts), so the portal
// applies the same URL rules and emits the same events.
import type { Context } from "hono";
import type { Child } from "hono/jsx";
import { pageWindow } from "../db/paging.ts";
import { EVENT_TYPES, EVERY_EVENT_TYPE, type EventType, type WebhookEndpointRow } from "../db/schema.ts";
import { deploymentOf, type PortalEnv } from "../env.ts";
import { EVENT_TYPE_WORDS } from "../events/words.ts";
import { pageMeta, pageOnlyQuery } from "../http/pagination.ts";
import { workOf } from "../http/request-context.ts";
import { createRouter } from "../http/router.ts";
import type { Problem, ProblemStatus } from "../lib/problem.ts";
import { Badge, Confirmation, CsrfField, Notice, Pager, Table } from "../ui/components.tsx";
import { notFoundPage } from "../ui/error-page.tsx";
import { dateTime, doneMessage } from "../ui/format.ts";
import { Checkboxes, fieldMessages, problemFields, readForm, Select, TextInput } from "../ui/forms.tsx";
import { renderPage } from "../ui/renderer.tsx";
import {
  createWebhookEndpointBody,
  deploymentUrlErrors,
  MAX_DESCRIPTION_LENGTH,
  toEndpointChanges,
  toNewEndpoint,
  updateWebhookEndpointBody,
} from "../webhooks/schemas.ts";
import { findEndpoint, listDeliveries, listEndpoints, subscribedTypes, takesEveryType } from "../webhooks/store.ts";
import { addEndpoint, changeEndpoint, redeliver, removeEndpoint, rotateEndpointSecret, sendTest } from "../webhooks/use-cases.ts";
import { showOnceAfterRedirect, takeShownOnce } from "./once-shown.ts";
import { AfterRedirect, refusalPage, requireSettingsRole } from "./settings-common.tsx";

const HOOKS_PATH = "/portal/settings/webhooks";
const DONE: Record<string, string> = {
  saved: "The endpoint is saved.",
  deleted: "The endpoint and its delivery log are deleted.",
  test: "A test event is on its way: its delivery is at the top of the list.",
  retried: "The delivery is sent again.",
};

interface EndpointForm {
  url: string;
  description: string;
  /** Every type, present and future, or the types ticked. */
  every: boolean;
  eventTypes: string[];
  status?: string | undefined;
  errors?: Record<string, string>;
}

/** The posted endpoint form: every type (["*"], future ones too) or the types ticked. */
async function readEndpointForm(c: Context<PortalEnv>): Promise<EndpointForm> {
  const posted = await readForm(c);
  return {
    url: posted.fields.url ?? "",
    description: posted.fields.description ?? "",
    every: (posted.fields.delivers ?? "") !== "chosen",
    eventTypes: posted.list("event_types"),
    status: (posted.fields.status ?? "") || undefined,
  };
}

/** The API's event_types from the form. */
function eventTypesOf(form: EndpointForm): string[] {
  return form.every ? [EVERY_EVENT_TYPE] : form.eventTypes;
}

/**
 * The form's errors by field: the body schema's (with the deployment's URL rule, as the API reports them: every
 * invalid field at once), and types ticked beside "every type".
 */
function formErrors(
  c: Context<PortalEnv>,
  issues: Parameters<typeof fieldMessages>[0],
  form: EndpointForm,
): Record<string, string> {
  const errors = fieldMessages(issues);
  // Types ticked under "every type" would be silently dropped: say so instead.
  if (form.every && form.eventTypes.length > 0) {
    errors.event_types ??= "are ticked while every type is chosen: choose “Only the types ticked below”, or untick them";
  }
  // The form goes back with errors: the URL's by the deployment's rule too, which the action would judge.
  if (Object.keys(errors).length > 0 && !errors.url) {
    const [urlError] = deploymentUrlErrors(deploymentOf(c.env), form.url);
    if (urlError) errors.url = urlError.message;
  }
  return errors;
}

/** Event types by what they are about, each group's heading. */
const EVENT_GROUPS: readonly { prefix: string; label: string }[] = [
  { prefix: "order.", label: "Orders" },
  { prefix: "kyc.", label: "Numbers' verifications" },
  { prefix: "kyc_profile.", label: "Profiles" },
  { prefix: "webhook.", label: "Tests" },
];

/** An event type as a list reads it: what it tells, then its identifier (what the payloads carry). */
function EventTypeLabel({ type }: { type: EventType }) {
  return (
    <>
      {EVENT_TYPE_WORDS[type]} <EventTypeId type={type} />
    </>
  );
}

const EventTypeId = ({ type }: { type: EventType }) => <code class="muted">{type}</code>;

/** An endpoint's event types as text. */
function eventTypesWords(endpoint: WebhookEndpointRow): string {
  return takesEveryType(endpoint)
    ? "Every event type"
    : subscribedTypes(endpoint)
        .map((type) => EVENT_TYPE_WORDS[type])
        .join("; ");
}

/**
 * The types follow "Deliver": while every type is chosen, the ticked types would say nothing, so this script disables
 * them (a disabled box is not sent). Without it the form still holds: the types ticked beside "every type" are refused
 * beside their field (formErrors), and the hint says when they count.
 */
const TYPES_FOLLOW_DELIVER = `for (const form of document.querySelectorAll("form[data-deliver]")) {
  const types = form.querySelector("fieldset[id$='event-types']");
  const every = form.querySelector("input[name=delivers][value=every]");
  const follow = () => { types.disabled = every.checked; };
  for (const radio of form.querySelectorAll("input[name=delivers]")) radio.addEventListener("change", follow);
  follow();
}`;

function EndpointFields({ c, form, edit }: { c: Context<PortalEnv>; form: EndpointForm; edit: boolean }) {
  const errors = form.errors ?? {};
  const prefix = edit ? "edit" : "new";
  return (
    <>
      <CsrfField token={c.var.visitor.csrfToken} />
      <TextInput name="url" id={`${prefix}-url`} label="URL" type="url" required value={form.url} error={errors.url} />
      <TextInput
        name="description"
        id={`${prefix}-description`}
        label="Description"
        maxlength={MAX_DESCRIPTION_LENGTH}
        value={form.description}
        error={errors.description}
        hint="Optional: what receives these events"
      />
      <fieldset class="checks">
        <legend>Deliver</legend>
        <label class="check">
          <input type="radio" name="delivers" value="every" checked={form.every} />
          Every event type, also types added later
        </label>
        <label class="check">
          <input type="radio" name="delivers" value="chosen" checked={!form.every} />
          Only the types ticked below
        </label>
      </fieldset>
      <Checkboxes
        name="event_types"
        id={`${prefix}-event-types`}
        label="Event types"
        values={form.eventTypes}
        groups={EVENT_GROUPS.map((group) => ({
          label: group.label,
          options: EVENT_TYPES.filter((type) => type.startsWith(group.prefix)).map(
            (type) => [type, EVENT_TYPE_WORDS[type], <EventTypeId type={type} />] as const,
          ),
        }))}
        error={errors.event_types}
        hint="Only with “Only the types ticked below”"
      />
      <script nonce={c.get("secureHeadersNonce")} dangerouslySetInnerHTML={{ __html: TYPES_FOLLOW_DELIVER }} />
      {edit ? (
        <Select
          name="status"
          id="edit-status"
          label="Status"
          value={form.status}
          options={[
            ["enabled", "Enabled"],
            ["disabled", "Disabled (sent nothing)"],
          ]}
          error={errors.status}
        />
      ) : null}
    </>
  );
}

const NEW_FORM: EndpointForm = { url: "", description: "", every: true, eventTypes: [] };

async function endpointsPage(c: Context<PortalEnv>, form: EndpointForm, top?: Child, status: 200 | ProblemStatus = 200) {
  const visitor = c.var.visitor;
  const query = pageOnlyQuery.safeParse(c.req.query());
  const window = query.success ? pageWindow(query.data.page, query.data.limit) : pageWindow(1, 20);
  const { rows, total } = await listEndpoints(c.var.db, visitor.customer.id, window);
  const meta = pageMeta(window, total);
  const shown = status === 200 ? await takeShownOnce(c, "webhooks") : undefined;
  const done = doneMessage(DONE, c.req.query("done"));
  return renderPage(
    c,
    { title: "Webhooks", section: "webhooks" },
    <>
      <h1>Webhooks</h1>
      <AfterRedirect c={c} id="new-secret" shown={shown} done={top ? undefined : done} />
      {top}
      {rows.length === 0 ? (
        <div class="card empty">
          <p>No endpoints yet: add one below to be told of orders and verifications as they change.</p>
        </div>
      ) : (
        <Table
          label="Webhook endpoints"
          rows={rows}
          columns={[
            { label: "URL", cell: (endpoint) => <a href={`${HOOKS_PATH}/${endpoint.id}`}>{endpoint.url}</a> },
            { label: "Description", cell: (endpoint) => endpoint.description ?? "" },
            { label: "Status", cell: (endpoint) => <Badge status={endpoint.status} /> },
            { label: "Event types", cell: eventTypesWords },
          ]}
        />
      )}
      <Pager meta={meta} noun="endpoint" hrefOf={(page) => `${HOOKS_PATH}?page=${page}`} />
      <form method="post" action={HOOKS_PATH} class="card stack" data-deliver>
        <h2>New endpoint</h2>
        <EndpointFields c={c} form={form} edit={false} />
        <div>
          <button type="submit">Create endpoint</button>
        </div>
      </form>
    </>,
    status,
  );
}

function formOf(endpoint: WebhookEndpointRow): EndpointForm {
  return {
    url: endpoint.url,
    description: endpoint.description ?? "",
    every: takesEveryType(endpoint),
    eventTypes: takesEveryType(endpoint) ? [] : subscribedTypes(endpoint),
    status: endpoint.status,
  };
}

async function endpointPage(
  c: Context<PortalEnv>,
  endpoint: WebhookEndpointRow,
  form: EndpointForm,
  status: 200 | ProblemStatus = 200,
) {
  const visitor = c.var.visitor;
  const base = `${HOOKS_PATH}/${endpoint.id}`;
  const query = pageOnlyQuery.safeParse(c.req.query());
  const window = query.success ? pageWindow(query.data.page, query.data.limit) : pageWindow(1, 20);
  const listed = await listDeliveries(c.var.db, visitor.customer.id, endpoint.id, {}, window);
  const { rows, total } = listed.ok ? listed.value : { rows: [], total: 0 };
  const meta = pageMeta(window, total);
  const shown = status === 200 ? await takeShownOnce(c, "webhooks") : undefined;
  const done = doneMessage(DONE, c.req.query("done"));
  return renderPage(
    c,
    { title: "Webhook endpoint", section: "webhooks" },
    <>
      <p>
        <a href={HOOKS_PATH}>← Webhooks</a>
      </p>
      <h1>
        {endpoint.url} <Badge status={endpoint.status} />
      </h1>
      <AfterRedirect c={c} id="new-secret" shown={shown} done={status === 200 ? done : undefined} />
      <div class="actions">
        <form method="post" action={`${base}/test`} class="inline">
          <CsrfField token={visitor.csrfToken} />
          <button type="submit">Send a test event</button>
        </form>
        <form method="post" action={`${base}/rotate`} class="inline">
          <CsrfField token={visitor.csrfToken} />
          <button type="submit" class="secondary">
            Rotate the secret
          </button>
        </form>
        <a href={`${base}/delete`}>Delete…</a>
      </div>
      <h2>Deliveries</h2>
      {rows.length === 0 ? (
        <div class="card empty">
          <p>Nothing delivered yet: send a test event to see one here.</p>
        </div>
      ) : (
        <Table
          label="Deliveries"
          rows={rows}
          columns={[
            { label: "Event", cell: ({ eventType }) => <EventTypeLabel type={eventType} /> },
            { label: "Status", cell: ({ delivery }) => <Badge status={delivery.status} /> },
            { label: "Attempts", cell: ({ delivery }) => delivery.attempts },
            { label: "Last status code", cell: ({ delivery }) => delivery.lastStatusCode ?? "—" },
            { label: "Last error", cell: ({ delivery }) => delivery.lastError ?? "—" },
            { label: "Next attempt", cell: ({ delivery }) => dateTime(delivery.nextAttemptAt) },
            { label: "Created", cell: ({ delivery }) => dateTime(delivery.createdAt) },
            {
              label: "Action",
              cell: ({ delivery }) =>
                delivery.status === "pending" ? (
                  <span class="muted">on its way</span>
                ) : (
                  <form method="post" action={`${base}/deliveries/${delivery.id}/retry`} class="inline">
                    <CsrfField token={visitor.csrfToken} />
                    <button type="submit" class="secondary">
                      Retry
                    </button>
                  </form>
                ),
            },
          ]}
        />
      )}
      <Pager meta={meta} noun="delivery" nouns="deliveries" hrefOf={(page) => `${base}?page=${page}`} />
      <form method="post" action={base} class="card stack" data-deliver>
        <h2>Edit</h2>
        <EndpointFields c={c} form={form} edit={true} />
        <div>
          <button type="submit">Save</button>
        </div>
      </form>
    </>,
    status,
  );
}

/** A use case's refusal as a page: its words, and a way back (`back`, or the endpoints). */
function problemPage(c: Context<PortalEnv>, problem: Problem, back = HOOKS_PATH) {
  return refusalPage(c, "webhooks", problem, back);
}

function missing(c: Context<PortalEnv>) {
  return notFoundPage(c, {
    what: "Webhook endpoint",
    section: "webhooks",
    back: { href: HOOKS_PATH, label: "Back to the webhooks" },
  });
}

export const webhookPages = createRouter<PortalEnv>()
  .use("/settings/webhooks", requireSettingsRole)
  .use("/settings/webhooks/*", requireSettingsRole)
  .get("/settings/webhooks", (c) => endpointsPage(c, NEW_FORM))
  .post("/settings/webhooks", async (c) => {
    const form = await readEndpointForm(c);
    const body = { url: form.url, description: form.description || undefined, event_types: eventTypesOf(form) };
    const parsed = createWebhookEndpointBody.safeParse(body);
    const errors = formErrors(c, parsed.error?.issues ?? [], form);
    if (!parsed.success || Object.keys(errors).length > 0) return endpointsPage(c, { ...form, errors }, undefined, 400);
    const created = await addEndpoint(workOf(c), c.var.visitor.customer.id, toNewEndpoint(parsed.data));
    if (!created.ok) {
      const { problem } = created;
      if (problem.errors) return endpointsPage(c, { ...form, errors: problemFields(problem) }, undefined, problem.status);
      return endpointsPage(c, form, <Notice kind="error">{problem.message}</Notice>, problem.status);
    }
    await showOnceAfterRedirect(c, "webhooks", {
      label: `Signing secret of ${created.value.url}`,
      secret: created.value.secret,
      notice: "The endpoint is created. Verify each delivery's signature with this secret.",
    });
    return c.redirect(`${HOOKS_PATH}/${created.value.id}`, 303);
  })
  .get("/settings/webhooks/:id", async (c) => {
    const endpoint = await findEndpoint(c.var.db, c.var.visitor.customer.id, c.req.param("id"));
    return endpoint ? endpointPage(c, endpoint, formOf(endpoint)) : missing(c);
  })
  .post("/settings/webhooks/:id", async (c) => {
    const endpoint = await findEndpoint(c.var.db, c.var.visitor.customer.id, c.req.param("id"));
    if (!endpoint) return missing(c);
    const form = await readEndpointForm(c);
    const body = {
      url: form.url,
      description: form.description || null,
      event_types: eventTypesOf(form),
      status: form.status,
    };
    const parsed = updateWebhookEndpointBody.safeParse(body);
    const errors = formErrors(c, parsed.error?.issues ?? [], form);
    if (!parsed.success || Object.keys(errors).length > 0) return endpointPage(c, endpoint, { ...form, errors }, 400);
    const updated = await changeEndpoint(workOf(c), c.var.visitor.customer.id, endpoint.id, toEndpointChanges(parsed.data));
    if (updated.ok) return c.redirect(`${HOOKS_PATH}/${endpoint.id}?done=saved`, 303);
    const { problem } = updated;
    if (problem.errors) return endpointPage(c, endpoint, { ...form, errors: problemFields(problem) }, problem.status);
    return problemPage(c, problem);
  })
  .post("/settings/webhooks/:id/rotate", async (c) => {
    const rotated = await rotateEndpointSecret(workOf(c), c.var.visitor.customer.id, c.req.param("id"));
    if (!rotated.ok) return problemPage(c, rotated.problem);
    await showOnceAfterRedirect(c, "webhooks", {
      label: "New signing secret",
      secret: rotated.value.secret,
      notice: "The secret is rotated. The old one keeps signing, beside the new one, for 24 hours.",
    });
    return c.redirect(`${HOOKS_PATH}/${rotated.value.id}`, 303);
  })
  .post("/settings/webhooks/:id/test", async (c) => {
    const id = c.req.param("id");
    const sent = await sendTest(workOf(c), c.var.visitor.customer.id, id);
    return sent.ok ? c.redirect(`${HOOKS_PATH}/${id}?done=test`, 303) : problemPage(c, sent.problem, `${HOOKS_PATH}/${id}`);
  })
  .post("/settings/webhooks/:id/deliveries/:deliveryId/retry", async (c) => {
    const { id, deliveryId } = c.req.param();
    const retried = await redeliver(workOf(c), c.var.visitor.customer.id, id, deliveryId);
    if (retried.ok) return c.redirect(`${HOOKS_PATH}/${id}?done=retried`, 303);
    return problemPage(c, retried.problem, `${HOOKS_PATH}/${id}`);
  })
  .get("/settings/webhooks/:id/delete", async (c) => {
    const visitor = c.var.visitor;
    const endpoint = await findEndpoint(c.var.db, visitor.customer.id, c.req.param("id"));
    if (!endpoint) return missing(c);
    return renderPage(
      c,
      { title: "Delete a webhook endpoint", section: "webhooks" },
      <Confirmation
        token={visitor.csrfToken}
        title={`Delete the endpoint ${endpoint.url}?`}
        action={`${HOOKS_PATH}/${endpoint.id}/delete`}
        button="Delete the endpoint"
        cancel={`${HOOKS_PATH}/${endpoint.id}`}
      >
        <p>Its delivery log goes with it, and deliveries still pending are cancelled.</p>
      </Confirmation>,
    );
  })
  .post("/settings/webhooks/:id/delete", async (c) => {
    const deleted = await removeEndpoint(workOf(c), c.var.visitor.customer.id, c.req.param("id"));
    return deleted.ok ? c.redirect(`${HOOKS_PATH}?done=deleted`, 303) : problemPage(c, deleted.problem);
  });
