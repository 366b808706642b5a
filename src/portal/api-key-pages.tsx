// The portal's API keys page, through the same use cases as the operator's API (src/customers/use-cases.ts).

import type { Context } from "hono";
import { createApiKeyBody, MAX_NAME_LENGTH } from "../customers/schemas.ts";
import { findApiKey, listApiKeys } from "../customers/store.ts";
import { issueApiKey, revokeKey } from "../customers/use-cases.ts";
import { pageWindow } from "../db/paging.ts";
import type { ApiKeyRow } from "../db/schema.ts";
import type { PortalEnv } from "../env.ts";
import { pageMeta, pageOnlyQuery } from "../http/pagination.ts";
import { workOf } from "../http/request-context.ts";
import { createRouter } from "../http/router.ts";
import { Badge, Confirmation, CsrfField, Pager, Table } from "../ui/components.tsx";
import { notFoundPage } from "../ui/error-page.tsx";
import { dateTime, doneMessage } from "../ui/format.ts";
import { fieldMessages, readForm, TextInput } from "../ui/forms.tsx";
import { renderPage } from "../ui/renderer.tsx";
import { showOnceAfterRedirect, takeShownOnce } from "./once-shown.ts";
import { AfterRedirect, refusalPage, requireSettingsRole } from "./settings-common.tsx";

const KEYS_PATH = "/portal/settings/api-keys";
const DONE: Record<string, string> = { revoked: "The key is revoked: the API refuses it from now on." };

function KeyText({ apiKey }: { apiKey: ApiKeyRow }) {
  return (
    <code>
      {apiKey.prefix}…{apiKey.lastFour}
    </code>
  );
}

async function keysPage(c: Context<PortalEnv>, form: { name?: string; error?: string }, status: 200 | 400 = 200) {
  const visitor = c.var.visitor;
  const query = pageOnlyQuery.safeParse(c.req.query());
  const window = query.success ? pageWindow(query.data.page, query.data.limit) : pageWindow(1, 20);
  const listed = await listApiKeys(c.var.db, visitor.customer.slug, window);
  const { rows, total } = listed.ok ? listed.value : { rows: [], total: 0 };
  const meta = pageMeta(window, total);
  const shown = status === 200 ? await takeShownOnce(c, "keys") : undefined;
  const done = doneMessage(DONE, c.req.query("done"));
  const slug = visitor.customer.slug;
  return renderPage(
    c,
    { title: "API keys", section: "keys" },
    <>
      <h1>API keys</h1>
      <AfterRedirect c={c} id="new-key" shown={shown} done={status === 200 ? done : undefined} />
      <p>
        This account's slug is <code>{slug}</code>: every path of the API names it, as in{" "}
        <code>/api/customers/{slug}/orders</code>.
      </p>
      <form method="post" action={KEYS_PATH} class="card stack">
        <h2>New key</h2>
        <CsrfField token={visitor.csrfToken} />
        <TextInput name="name" label="Name" required maxlength={MAX_NAME_LENGTH} value={form.name} error={form.error} />
        <div>
          <button type="submit">Create key</button>
        </div>
      </form>
      <h2>Keys</h2>
      {rows.length === 0 ? (
        <div class="card empty">
          <p>No keys yet: create one above to use the API.</p>
        </div>
      ) : (
        <Table
          label="API keys"
          rows={rows}
          columns={[
            { label: "Name", cell: (key) => key.name },
            { label: "Key", cell: (key) => <KeyText apiKey={key} /> },
            { label: "Created", cell: (key) => dateTime(key.createdAt) },
            { label: "Last used", cell: (key) => dateTime(key.lastUsedAt) },
            { label: "Status", cell: (key) => <Badge status={key.revokedAt === null ? "active" : "revoked"} /> },
            {
              label: "Action",
              cell: (key) =>
                key.revokedAt === null ? (
                  <a href={`${KEYS_PATH}/${key.id}/revoke`}>Revoke…</a>
                ) : (
                  <span class="muted">revoked {dateTime(key.revokedAt)}</span>
                ),
            },
          ]}
        />
      )}
      <Pager meta={meta} noun="key" hrefOf={(page) => `${KEYS_PATH}?page=${page}`} />
    </>,
    status,
  );
}

/** The account's key with this id, or undefined: another account's key is not found either. */
async function ownKey(c: Context<PortalEnv>, id: string) {
  const key = await findApiKey(c.var.db, id);
  return key?.customerId === c.var.visitor.customer.id ? key : undefined;
}

function noSuchKey(c: Context<PortalEnv>) {
  return notFoundPage(c, { what: "API key", section: "keys", back: { href: KEYS_PATH, label: "Back to the API keys" } });
}

export const apiKeyPages = createRouter<PortalEnv>()
  .use("/settings/api-keys", requireSettingsRole)
  .use("/settings/api-keys/*", requireSettingsRole)
  .get("/settings/api-keys", (c) => keysPage(c, {}))
  .post("/settings/api-keys", async (c) => {
    const visitor = c.var.visitor;
    const name = (await readForm(c)).fields.name ?? "";
    const parsed = createApiKeyBody.safeParse({ name });
    if (!parsed.success) return keysPage(c, { name, error: fieldMessages(parsed.error.issues).name }, 400);
    const created = await issueApiKey(workOf(c), visitor.customer.slug, parsed.data.name);
    if (!created.ok) return refusalPage(c, "keys", created.problem, KEYS_PATH);
    await showOnceAfterRedirect(c, "keys", {
      label: `The key “${created.value.row.name}”`,
      secret: created.value.key,
      notice: `The key “${created.value.row.name}” is created. Send it as Authorization: Bearer <key>.`,
    });
    return c.redirect(KEYS_PATH, 303);
  })
  .get("/settings/api-keys/:id/revoke", async (c) => {
    const visitor = c.var.visitor;
    const key = await ownKey(c, c.req.param("id"));
    if (!key) return noSuchKey(c);
    return renderPage(
      c,
      { title: "Revoke an API key", section: "keys" },
      <Confirmation
        token={visitor.csrfToken}
        title={`Revoke the key “${key.name}”?`}
        action={`${KEYS_PATH}/${key.id}/revoke`}
        button="Revoke the key"
        cancel={KEYS_PATH}
      >
        <p>
          <KeyText apiKey={key} /> will be refused by the API at once, and cannot be used again: programs that use it stop
          working.
        </p>
      </Confirmation>,
    );
  })
  .post("/settings/api-keys/:id/revoke", async (c) => {
    const revoked = await revokeKey(workOf(c), c.req.param("id"), c.var.visitor.customer.id);
    // Its one refusal is a key not found (or another account's).
    return revoked.ok ? c.redirect(`${KEYS_PATH}?done=revoked`, 303) : noSuchKey(c);
  });
