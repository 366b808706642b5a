// Settings → Webhooks: the account's endpoints; create (the secret shown once), edit, enable or disable, delete after a
// confirmation, rotate the secret (shown once); an endpoint's deliveries with retry, and a test event. Through the
// webhook store and the API's body schemas and URL rules; the outbox sends what the store queues, as for the API.
import type { Context } from "hono";
import { pageWindow } from "../db/paging.ts";
import { EVENT_TYPES, type WebhookEndpointRow } from "../db/schema.ts";
import type { PortalEnv } from "../env.ts";
import { pageMeta, pageOnlyQuery } from "../http/pagination.ts";
import { createRouter } from "../http/router.ts";
import {
  allowsInsecureUrls,
  createWebhookEndpointBody,
  toEndpointChanges,
  toNewEndpoint,
  updateWebhookEndpointBody,
  webhookUrl,
} from "../webhooks/schemas.ts";
import {
  createEndpoint,
  deleteEndpoint,
  findEndpoint,
  listDeliveries,
  listEndpoints,
  retryDelivery,
  rotateSecret,
  sendTestEvent,
  subscribedTypes,
  takesEveryType,
  updateEndpoint,
} from "../webhooks/store.ts";
import { fieldMessages } from "./forms.tsx";
import { Badge, CsrfField, Notice, Pager, renderPage } from "./layout.tsx";
import { FieldError, invalid, OnceSecret, postedForm, refusalPage, requireSettingsRole, when } from "./settings-common.tsx";

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
  eventTypes: string[];
  status?: string;
  errors?: Record<string, string>;
}

/** The posted endpoint form, as the API's body (empty description: absent on create, cleared on edit). */
async function readEndpointForm(c: Context<PortalEnv>): Promise<EndpointForm> {
  const posted = await postedForm(c);
  return {
    url: posted.text("url"),
    description: posted.text("description"),
    eventTypes: posted.list("event_types"),
    status: posted.text("status") || undefined,
  };
}

/**
 * The form's errors by field: the body schema's, and the URL judged by this deployment's rules, as webhookUrlHook does
 * for the API (the schema holds the insecure allowance; without WEBHOOK_ALLOW_INSECURE_URLS the full rules apply).
 */
function formErrors(c: Context<PortalEnv>, issues: Parameters<typeof fieldMessages>[0], url: string): Record<string, string> {
  const errors = fieldMessages(issues);
  if (!errors.url && !allowsInsecureUrls(c.env)) {
    const strict = webhookUrl(false).safeParse(url);
    if (!strict.success && strict.error.issues[0]) errors.url = strict.error.issues[0].message;
  }
  return errors;
}

function EndpointFields({ c, form, edit }: { c: Context<PortalEnv>; form: EndpointForm; edit: boolean }) {
  const errors = form.errors ?? {};
  return (
    <>
      <CsrfField token={c.var.visitor.csrfToken} />
      <label>
        URL
        <input name="url" type="url" required value={form.url} {...invalid("hook-url", errors.url)} />
      </label>
      <FieldError id="hook-url-error" message={errors.url} />
      <label>
        Description
        <input name="description" maxlength={500} value={form.description} {...invalid("hook-description", errors.description)} />
      </label>
      <FieldError id="hook-description-error" message={errors.description} />
      <fieldset class="checks" {...invalid("hook-types", errors.event_types)}>
        <legend>Event types</legend>
        {EVENT_TYPES.map((type) => (
          <label>
            <input type="checkbox" name="event_types" value={type} checked={form.eventTypes.includes(type)} />
            {type}
          </label>
        ))}
      </fieldset>
      <FieldError id="hook-types-error" message={errors.event_types} />
      {edit ? (
        <label>
          Status
          <select name="status">
            <option value="enabled" selected={form.status === "enabled"}>
              enabled
            </option>
            <option value="disabled" selected={form.status === "disabled"}>
              disabled (sent nothing)
            </option>
          </select>
        </label>
      ) : null}
    </>
  );
}

const NEW_FORM: EndpointForm = { url: "", description: "", eventTypes: [...EVENT_TYPES] };

async function endpointsPage(c: Context<PortalEnv>, form: EndpointForm, top?: unknown, status: 200 | 400 | 409 = 200) {
  const visitor = c.var.visitor;
  const query = pageOnlyQuery.safeParse(c.req.query());
  const window = query.success ? pageWindow(query.data.page, query.data.limit) : pageWindow(1, 20);
  const { rows, total } = await listEndpoints(c.var.db, visitor.customer.id, window);
  const meta = pageMeta(window, total);
  const done = DONE[c.req.query("done") ?? ""];
  return renderPage(
    c,
    visitor,
    { title: "Webhooks", section: "webhooks" },
    <>
      <h1>Webhooks</h1>
      {done && !top ? <Notice kind="success">{done}</Notice> : null}
      {top}
      {rows.length === 0 ? (
        <div class="card empty">
          <p>No endpoints yet: add one below to be told of orders and verifications as they change.</p>
        </div>
      ) : (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">URL</th>
                <th scope="col">Description</th>
                <th scope="col">Status</th>
                <th scope="col">Event types</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((endpoint) => (
                <tr>
                  <td>
                    <a href={`${HOOKS_PATH}/${endpoint.id}`}>{endpoint.url}</a>
                  </td>
                  <td>{endpoint.description ?? ""}</td>
                  <td>
                    <Badge status={endpoint.status} />
                  </td>
                  <td>{takesEveryType(endpoint) ? "every type" : subscribedTypes(endpoint).join(", ")}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager meta={meta} noun="endpoints" hrefOf={(page) => `${HOOKS_PATH}?page=${page}`} />
      <form method="post" action={HOOKS_PATH} class="card stack">
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
    eventTypes: subscribedTypes(endpoint),
    status: endpoint.status,
  };
}

async function endpointPage(
  c: Context<PortalEnv>,
  endpoint: WebhookEndpointRow,
  form: EndpointForm,
  top?: unknown,
  status: 200 | 400 = 200,
) {
  const visitor = c.var.visitor;
  const base = `${HOOKS_PATH}/${endpoint.id}`;
  const query = pageOnlyQuery.safeParse(c.req.query());
  const window = query.success ? pageWindow(query.data.page, query.data.limit) : pageWindow(1, 20);
  const listed = await listDeliveries(c.var.db, visitor.customer.id, endpoint.id, {}, window);
  const { rows, total } = listed.ok ? listed.value : { rows: [], total: 0 };
  const meta = pageMeta(window, total);
  const done = DONE[c.req.query("done") ?? ""];
  return renderPage(
    c,
    visitor,
    { title: "Webhook endpoint", section: "webhooks" },
    <>
      <p>
        <a href={HOOKS_PATH}>← Webhooks</a>
      </p>
      <h1>
        {endpoint.url} <Badge status={endpoint.status} />
      </h1>
      {done && !top ? <Notice kind="success">{done}</Notice> : null}
      {top}
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
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Event</th>
                <th scope="col">Status</th>
                <th scope="col">Attempts</th>
                <th scope="col">Last status code</th>
                <th scope="col">Last error</th>
                <th scope="col">Next attempt</th>
                <th scope="col">Created</th>
                <th scope="col">Action</th>
              </tr>
            </thead>
            <tbody>
              {rows.map(({ delivery, eventType }) => (
                <tr>
                  <td>{eventType}</td>
                  <td>
                    <Badge status={delivery.status} />
                  </td>
                  <td>{delivery.attempts}</td>
                  <td>{delivery.lastStatusCode ?? "—"}</td>
                  <td>{delivery.lastError ?? "—"}</td>
                  <td>{when(delivery.nextAttemptAt)}</td>
                  <td>{when(delivery.createdAt)}</td>
                  <td>
                    {delivery.status === "pending" ? (
                      <span class="muted">on its way</span>
                    ) : (
                      <form method="post" action={`${base}/deliveries/${delivery.id}/retry`} class="inline">
                        <CsrfField token={visitor.csrfToken} />
                        <button type="submit" class="secondary">
                          Retry
                        </button>
                      </form>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager meta={meta} noun="deliveries" hrefOf={(page) => `${base}?page=${page}`} />
      <form method="post" action={base} class="card stack">
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

function missing(c: Context<PortalEnv>) {
  return refusalPage(c, c.var.visitor, "webhooks", 404, "There is no such endpoint in this account.", HOOKS_PATH);
}

export const webhookPages = createRouter<PortalEnv>()
  .use("/settings/webhooks", requireSettingsRole)
  .use("/settings/webhooks/*", requireSettingsRole)
  .get("/settings/webhooks", (c) => endpointsPage(c, NEW_FORM))
  .post("/settings/webhooks", async (c) => {
    const form = await readEndpointForm(c);
    const body = { url: form.url, description: form.description || undefined, event_types: form.eventTypes };
    const parsed = createWebhookEndpointBody.safeParse(body);
    const errors = formErrors(c, parsed.error?.issues ?? [], form.url);
    if (!parsed.success || errors.url) return endpointsPage(c, { ...form, errors }, undefined, 400);
    const created = await createEndpoint(c.var.db, c.var.visitor.customer.id, toNewEndpoint(parsed.data), Date.now());
    if (!created.ok) {
      const full = <Notice kind="error">An account has at most {created.limit} webhook endpoints: delete one first.</Notice>;
      return endpointsPage(c, form, full, 409);
    }
    const secret = (
      <OnceSecret c={c} id="new-secret" label={`Signing secret of ${created.value.url}`} secret={created.value.secret} />
    );
    return endpointsPage(c, NEW_FORM, secret);
  })
  .get("/settings/webhooks/:id", async (c) => {
    const endpoint = await findEndpoint(c.var.db, c.var.visitor.customer.id, c.req.param("id"));
    return endpoint ? endpointPage(c, endpoint, formOf(endpoint)) : missing(c);
  })
  .post("/settings/webhooks/:id", async (c) => {
    const endpoint = await findEndpoint(c.var.db, c.var.visitor.customer.id, c.req.param("id"));
    if (!endpoint) return missing(c);
    const form = await readEndpointForm(c);
    const body = { url: form.url, description: form.description || null, event_types: form.eventTypes, status: form.status };
    const parsed = updateWebhookEndpointBody.safeParse(body);
    const errors = formErrors(c, parsed.error?.issues ?? [], form.url);
    if (!parsed.success || errors.url) return endpointPage(c, endpoint, { ...form, errors }, undefined, 400);
    const updated = await updateEndpoint(
      c.var.db,
      c.var.visitor.customer.id,
      endpoint.id,
      toEndpointChanges(parsed.data),
      Date.now(),
    );
    return updated.ok ? c.redirect(`${HOOKS_PATH}/${endpoint.id}?done=saved`, 303) : missing(c);
  })
  .post("/settings/webhooks/:id/rotate", async (c) => {
    const rotated = await rotateSecret(c.var.db, c.var.visitor.customer.id, c.req.param("id"), Date.now());
    if (!rotated.ok) return missing(c);
    const secret = (
      <>
        <Notice kind="success">The old secret keeps signing, beside the new one, for 24 hours.</Notice>
        <OnceSecret c={c} id="new-secret" label="New signing secret" secret={rotated.value.secret} />
      </>
    );
    return endpointPage(c, rotated.value, formOf(rotated.value), secret);
  })
  .post("/settings/webhooks/:id/test", async (c) => {
    const id = c.req.param("id");
    const sent = await sendTestEvent(c.var.db, c.var.outbox, c.var.visitor.customer.id, id, Date.now());
    if (sent.ok) return c.redirect(`${HOOKS_PATH}/${id}?done=test`, 303);
    if (sent.reason === "not_found") return missing(c);
    const message = "The endpoint is disabled and is sent nothing: enable it first.";
    return refusalPage(c, c.var.visitor, "webhooks", 409, message, `${HOOKS_PATH}/${id}`);
  })
  .post("/settings/webhooks/:id/deliveries/:deliveryId/retry", async (c) => {
    const { id, deliveryId } = c.req.param();
    const retried = await retryDelivery(c.var.db, c.var.outbox, c.var.visitor.customer.id, id, deliveryId, Date.now());
    if (retried.ok) return c.redirect(`${HOOKS_PATH}/${id}?done=retried`, 303);
    if (retried.reason === "not_found") {
      return refusalPage(c, c.var.visitor, "webhooks", 404, "There is no such delivery.", `${HOOKS_PATH}/${id}`);
    }
    const message =
      retried.state === "disabled"
        ? "The endpoint is disabled and is sent nothing: enable it first."
        : "The delivery is pending: it is on its way already.";
    return refusalPage(c, c.var.visitor, "webhooks", 409, message, `${HOOKS_PATH}/${id}`);
  })
  .get("/settings/webhooks/:id/delete", async (c) => {
    const visitor = c.var.visitor;
    const endpoint = await findEndpoint(c.var.db, visitor.customer.id, c.req.param("id"));
    if (!endpoint) return missing(c);
    return renderPage(
      c,
      visitor,
      { title: "Delete a webhook endpoint", section: "webhooks" },
      <div class="card">
        <h1>Delete the endpoint {endpoint.url}?</h1>
        <p>Its delivery log goes with it, and deliveries still pending are cancelled.</p>
        <form method="post" action={`${HOOKS_PATH}/${endpoint.id}/delete`} class="stack">
          <CsrfField token={visitor.csrfToken} />
          <label class="check">
            <span>
              <input type="checkbox" name="confirm" value="yes" required /> I understand
            </span>
          </label>
          <div class="actions">
            <button type="submit" class="danger">
              Delete the endpoint
            </button>
            <a href={`${HOOKS_PATH}/${endpoint.id}`}>Cancel</a>
          </div>
        </form>
      </div>,
    );
  })
  .post("/settings/webhooks/:id/delete", async (c) => {
    const id = c.req.param("id");
    if ((await postedForm(c)).text("confirm") !== "yes") {
      return refusalPage(
        c,
        c.var.visitor,
        "webhooks",
        409,
        "Tick “I understand” to delete the endpoint.",
        `${HOOKS_PATH}/${id}/delete`,
      );
    }
    const deleted = await deleteEndpoint(c.var.db, c.var.visitor.customer.id, id);
    return deleted.ok ? c.redirect(`${HOOKS_PATH}?done=deleted`, 303) : missing(c);
  });
