// Settings → API keys: the account's keys, a new key (shown once, in the POST's answer), a revocation after a
// confirmation. Through the same store functions as the operator's API, scoped to the visitor's account.
import type { Context } from "hono";
import { createApiKeyBody } from "../customers/schemas.ts";
import { createApiKey, findApiKey, listApiKeys, revokeApiKey } from "../customers/store.ts";
import { pageWindow } from "../db/paging.ts";
import type { PortalEnv, PortalVisitor } from "../env.ts";
import { pageMeta, pageOnlyQuery } from "../http/pagination.ts";
import { createRouter } from "../http/router.ts";
import { fieldMessages } from "./forms.tsx";
import { Badge, CsrfField, Notice, Pager, renderPage } from "./layout.tsx";
import { FieldError, invalid, OnceSecret, postedForm, refusalPage, requireSettingsRole, when } from "./settings-common.tsx";

const KEYS_PATH = "/portal/settings/api-keys";
const DONE: Record<string, string> = { revoked: "The key is revoked: the API refuses it from now on." };

async function keysPage(
  c: Context,
  visitor: PortalVisitor,
  form: { name?: string; error?: string },
  top?: unknown,
  status: 200 | 400 = 200,
) {
  const query = pageOnlyQuery.safeParse(c.req.query());
  const window = query.success ? pageWindow(query.data.page, query.data.limit) : pageWindow(1, 20);
  const listed = await listApiKeys(c.var.db, visitor.customer.slug, window);
  const { rows, total } = listed.ok ? listed.value : { rows: [], total: 0 };
  const meta = pageMeta(window, total);
  const done = DONE[c.req.query("done") ?? ""];
  return renderPage(
    c,
    visitor,
    { title: "API keys", section: "keys" },
    <>
      <h1>API keys</h1>
      {done && status === 200 && !top ? <Notice kind="success">{done}</Notice> : null}
      {top}
      <form method="post" action={KEYS_PATH} class="card stack">
        <h2>New key</h2>
        <CsrfField token={visitor.csrfToken} />
        <label>
          Name
          <input name="name" required maxlength={200} value={form.name ?? ""} {...invalid("key-name", form.error)} />
        </label>
        <FieldError id="key-name-error" message={form.error} />
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
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Key</th>
                <th scope="col">Created</th>
                <th scope="col">Last used</th>
                <th scope="col">Status</th>
                <th scope="col">Action</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((key) => (
                <tr>
                  <td>{key.name}</td>
                  <td>
                    <code>
                      {key.prefix}…{key.lastFour}
                    </code>
                  </td>
                  <td>{when(key.createdAt)}</td>
                  <td>{when(key.lastUsedAt)}</td>
                  <td>{key.revokedAt === null ? <Badge status="active" /> : <Badge status="revoked" />}</td>
                  <td>
                    {key.revokedAt === null ? (
                      <a href={`${KEYS_PATH}/${key.id}/revoke`}>Revoke…</a>
                    ) : (
                      <span class="muted">revoked {when(key.revokedAt)}</span>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager meta={meta} noun="keys" hrefOf={(page) => `${KEYS_PATH}?page=${page}`} />
    </>,
    status,
  );
}

/** The account's key with this id, or undefined: another account's key is not found either. */
async function ownKey(c: Context<PortalEnv>, id: string) {
  const key = await findApiKey(c.var.db, id);
  return key?.customerId === c.var.visitor.customer.id ? key : undefined;
}

export const apiKeyPages = createRouter<PortalEnv>()
  .use("/settings/api-keys", requireSettingsRole)
  .use("/settings/api-keys/*", requireSettingsRole)
  .get("/settings/api-keys", (c) => keysPage(c, c.var.visitor, {}))
  .post("/settings/api-keys", async (c) => {
    const visitor = c.var.visitor;
    const name = (await postedForm(c)).text("name");
    const parsed = createApiKeyBody.safeParse({ name });
    if (!parsed.success) return keysPage(c, visitor, { name, error: fieldMessages(parsed.error.issues).name }, undefined, 400);
    const created = await createApiKey(c.var.db, visitor.customer.slug, parsed.data.name, Date.now());
    if (!created.ok) return refusalPage(c, visitor, "keys", 404, "This account no longer exists.", KEYS_PATH);
    const secret = <OnceSecret c={c} id="new-key" label={`The key "${created.value.row.name}"`} secret={created.value.key} />;
    return keysPage(c, visitor, {}, secret);
  })
  .get("/settings/api-keys/:id/revoke", async (c) => {
    const visitor = c.var.visitor;
    const key = await ownKey(c, c.req.param("id"));
    if (!key) return refusalPage(c, visitor, "keys", 404, "There is no such key in this account.", KEYS_PATH);
    return renderPage(
      c,
      visitor,
      { title: "Revoke an API key", section: "keys" },
      <div class="card">
        <h1>Revoke the key "{key.name}"?</h1>
        <p>
          <code>
            {key.prefix}…{key.lastFour}
          </code>{" "}
          will be refused by the API at once, and cannot be used again.
        </p>
        <form method="post" action={`${KEYS_PATH}/${key.id}/revoke`} class="stack">
          <CsrfField token={visitor.csrfToken} />
          <label>
            <span>
              <input type="checkbox" name="confirm" value="yes" required /> I understand that programs using this key will stop
              working
            </span>
          </label>
          <div class="actions">
            <button type="submit" class="danger">
              Revoke the key
            </button>
            <a href={KEYS_PATH}>Cancel</a>
          </div>
        </form>
      </div>,
    );
  })
  .post("/settings/api-keys/:id/revoke", async (c) => {
    const visitor = c.var.visitor;
    const key = await ownKey(c, c.req.param("id"));
    if (!key) return refusalPage(c, visitor, "keys", 404, "There is no such key in this account.", KEYS_PATH);
    if ((await postedForm(c)).text("confirm") !== "yes") {
      return refusalPage(c, visitor, "keys", 409, "Tick “I understand” to revoke the key.", `${KEYS_PATH}/${key.id}/revoke`);
    }
    await revokeApiKey(c.var.db, key.id, Date.now());
    return c.redirect(`${KEYS_PATH}?done=revoked`, 303);
  });
