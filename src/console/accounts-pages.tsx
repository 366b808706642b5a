// Console pages for customer accounts, their API keys and users.
import type { Context } from "hono";
import { createApiKeyBody, createCustomerBody, MAX_NAME_LENGTH, slugParams } from "../customers/schemas.ts";
import { findApiKey, findCustomerBySlug, listApiKeys, listCustomers } from "../customers/store.ts";
import { issueApiKeyAction, openAccountAction, revokeApiKeyAction } from "../customers/use-cases.ts";
import { pageWindow } from "../db/paging.ts";
import { type CustomerRow, USER_ROLES } from "../db/schema.ts";
import type { ConsoleEnv } from "../env.ts";
import { pageMeta } from "../http/pagination.ts";
import { publicOrigin } from "../http/public-origin.ts";
import { workOf } from "../http/request-context.ts";
import { createRouter } from "../http/router.ts";
import { capitalised, words } from "../lib/words.ts";
import { listOrders } from "../orders/list.ts";
import { listOrdersQuery, toOrder, toOrderListQuery } from "../orders/schemas.ts";
import { changeGuard, mayChange } from "../staff/roles.ts";
import { leaveAfterRedirect, takeAfterRedirect } from "../ui/after-redirect.ts";
import { Badge, Confirmation, CsrfField, Notice, type NoticeText, Pager, Table } from "../ui/components.tsx";
import { notFoundPage } from "../ui/error-page.tsx";
import { dateTime, plural } from "../ui/format.ts";
import { fieldMessages, problemFields, readForm, Select, TextInput } from "../ui/forms.tsx";
import { renderPage } from "../ui/renderer.tsx";
import { UserStatus } from "../ui/user-status.tsx";
import { createUserBody, teamListQuery, toInvitation, toTeamListQuery } from "../users/schemas.ts";
import { listTeam, TEAM_STATUSES } from "../users/store.ts";
import { addUserAction } from "../users/use-cases.ts";
import { listWindow, noticeOf, type PostedForm, refusal, staffNote } from "./admin-common.tsx";
import { NUMBERS } from "./number-moves.tsx";

type C = Context<ConsoleEnv>;
type Messages = Record<string, string>;

export const ACCOUNTS = "/ops/accounts";
const ACCOUNT_DONE: Record<string, string> = {
  opened: "The account is open. Create its first API key or invite its first user below.",
  revoked: "The key is revoked: the API refuses it from now on.",
};
/** The users an account's page lists. */
const USERS_SHOWN = 100;
/** The recent orders an account's page shows. */
const RECENT_ORDERS = 10;

async function accountsPage(c: C, form: PostedForm = {}, status = 200) {
  const window = listWindow(c);
  const { rows, total } = await listCustomers(c.var.db, window);
  const meta = pageMeta(window, total);
  const values = form.values ?? {};
  const errors = form.errors ?? {};
  return renderPage(
    c,
    { title: "Accounts", section: "accounts" },
    <>
      <h1>Accounts</h1>
      {noticeOf(c, {}, form.said)}
      {mayChange(c.var.operator, openAccountAction) ? (
        <form method="post" action={ACCOUNTS} class="card filters" aria-label="Open an account" novalidate>
          <CsrfField token={c.var.csrfToken} />
          <TextInput
            name="slug"
            label="Slug"
            required
            value={values.slug}
            error={errors.slug}
            hint="Its name in the API's paths, e.g. acme-telecom; never changes"
          />
          <TextInput
            name="name"
            label="Name"
            required
            maxlength={MAX_NAME_LENGTH}
            value={values.name}
            error={errors.name}
            hint="As people read it, e.g. Acme Telecom"
          />
          <div class="actions">
            <button type="submit">Open account</button>
          </div>
        </form>
      ) : null}
      {rows.length === 0 ? (
        <div class="card empty">
          <p>No accounts yet.</p>
        </div>
      ) : (
        <Table
          label="Accounts"
          rows={rows}
          columns={[
            { label: "Slug", cell: (row) => <a href={`${ACCOUNTS}/${row.slug}`}>{row.slug}</a> },
            { label: "Name", cell: (row) => row.name },
            { label: "Opened", cell: (row) => dateTime(row.createdAt) },
          ]}
        />
      )}
      <Pager meta={meta} noun="account" hrefOf={(n) => `${ACCOUNTS}?page=${n}`} />
    </>,
    status,
  );
}

/**
 * What a key's or an invitation's POST leaves for the account's page it redirects to, shown there once: the new key, or
 * the invitation link (neither is stored in the clear, so neither can be shown again).
 */
interface AccountShown {
  /** The account whose page shows it (another account's page shows nothing of it). */
  slug: string;
  newKey?: { name: string; key: string };
  invited?: { email: string; url: string; expiresAt: string };
}
/** The cookie that carries a new key or invitation link to the account's page after the redirect. */
const ACCOUNT_SHOWN = "vn_once_account";

interface AccountState extends Omit<AccountShown, "slug"> {
  said?: NoticeText;
  key?: { values: Messages; errors: Messages };
  user?: { values: Messages; errors: Messages };
}

async function accountPage(c: C, customer: CustomerRow, state: AccountState = {}, status = 200) {
  const { db } = c.var;
  const orderQuery = listOrdersQuery.parse({ sort_by: "requested_at", sort_order: "desc", limit: String(RECENT_ORDERS) });
  const [keys, team, orders] = await Promise.all([
    listApiKeys(db, customer.slug, pageWindow(1, 100)),
    listTeam(db, customer.id, toTeamListQuery(teamListQuery.parse({ limit: String(USERS_SHOWN) })), pageWindow(1, USERS_SHOWN)),
    listOrders(db, customer.id, toOrderListQuery(orderQuery), pageWindow(1, RECENT_ORDERS)),
  ]);
  const keyRows = keys.ok ? keys.value.rows : [];
  const mayCreateKey = mayChange(c.var.operator, issueApiKeyAction);
  const mayRevoke = mayChange(c.var.operator, revokeApiKeyAction);
  const mayInvite = mayChange(c.var.operator, addUserAction);
  const base = `${ACCOUNTS}/${customer.slug}`;
  const keyForm = state.key ?? { values: {}, errors: {} };
  const userForm = state.user ?? { values: {}, errors: {} };
  return renderPage(
    c,
    { title: customer.name, section: "accounts" },
    <>
      <p>
        <a href={ACCOUNTS}>← Accounts</a>
      </p>
      <h1>{customer.name}</h1>
      {noticeOf(c, ACCOUNT_DONE, state.said)}
      <dl class="facts card">
        <dt>Slug</dt>
        <dd>
          <code>{customer.slug}</code>
        </dd>
        <dt>Id</dt>
        <dd>
          <code>{customer.id}</code>
        </dd>
        <dt>Opened</dt>
        <dd>{dateTime(customer.createdAt)}</dd>
        <dt>Numbers</dt>
        <dd>
          <a href={`${NUMBERS}?customer_slug=${encodeURIComponent(customer.slug)}`}>The account's numbers</a>
        </dd>
      </dl>

      <section class="work">
        <h2>API keys</h2>
        {state.newKey ? (
          <div class="card">
            <Notice kind="success">The key “{state.newKey.name}” is created. Copy it now: it is never shown again.</Notice>
            <p class="secret">{state.newKey.key}</p>
          </div>
        ) : null}
        {keyRows.length === 0 ? (
          <p class="muted">No keys.</p>
        ) : (
          <Table
            label="API keys"
            rows={keyRows}
            columns={[
              { label: "Name", cell: (key) => key.name },
              {
                label: "Key",
                cell: (key) => (
                  <code>
                    {key.prefix}…{key.lastFour}
                  </code>
                ),
              },
              { label: "Created", cell: (key) => dateTime(key.createdAt) },
              { label: "Last used", cell: (key) => dateTime(key.lastUsedAt) },
              { label: "Status", cell: (key) => <Badge status={key.revokedAt === null ? "active" : "revoked"} /> },
              ...(mayRevoke
                ? [
                    {
                      label: "Action",
                      cell: (key: { id: string; name: string; revokedAt: number | null }) =>
                        key.revokedAt === null ? (
                          <a href={`${base}/keys/${key.id}/revoke`} aria-label={`Revoke ${key.name}…`}>
                            Revoke…
                          </a>
                        ) : (
                          <span class="muted">revoked</span>
                        ),
                    },
                  ]
                : []),
            ]}
          />
        )}
        {mayCreateKey ? (
          <form method="post" action={`${base}/keys`} class="card filters" aria-label="New API key">
            <CsrfField token={c.var.csrfToken} />
            <TextInput
              name="name"
              id="key-name"
              label="Key name"
              required
              maxlength={MAX_NAME_LENGTH}
              value={keyForm.values.name}
              error={keyForm.errors.name}
            />
            <div class="actions">
              <button type="submit">Create key</button>
            </div>
          </form>
        ) : null}
      </section>

      <section class="work">
        <h2>Users</h2>
        {state.invited ? (
          <div class="card">
            <Notice kind="success">
              {state.invited.email} is invited. Send them this link to set their password (single use, until{" "}
              {dateTime(state.invited.expiresAt)}); it is not shown again.
            </Notice>
            <p class="secret">{state.invited.url}</p>
          </div>
        ) : null}
        {team.rows.length === 0 ? (
          <p class="muted">No users.</p>
        ) : (
          <>
            <p class="muted">
              {plural(team.total, "user")}:{" "}
              {TEAM_STATUSES.filter((status) => team.statusCounts[status] > 0)
                .map((status) => `${team.statusCounts[status]} ${words(status)}`)
                .join(", ")}
              .{team.total > team.rows.length ? ` The first ${team.rows.length} are listed.` : ""}
            </p>
            <Table
              label="Users"
              rows={team.rows}
              columns={[
                { label: "E-mail", cell: (user) => user.email },
                { label: "Name", cell: (user) => user.name },
                { label: "Role", cell: (user) => capitalised(user.role) },
                { label: "Status", cell: (user) => <UserStatus user={user} /> },
                { label: "Last sign-in", cell: (user) => dateTime(user.lastLoginAt) },
              ]}
            />
          </>
        )}
        {mayInvite ? (
          <form method="post" action={`${base}/users`} class="card filters" aria-label="Invite a user" novalidate>
            <CsrfField token={c.var.csrfToken} />
            <TextInput
              name="email"
              id="user-email"
              label="User's e-mail"
              type="email"
              required
              value={userForm.values.email}
              error={userForm.errors.email}
            />
            <TextInput
              name="name"
              id="user-name"
              label="User's name"
              required
              value={userForm.values.name}
              error={userForm.errors.name}
            />
            <Select
              name="role"
              id="user-role"
              label="User's role"
              value={userForm.values.role ?? "member"}
              options={USER_ROLES.map((role) => [role, capitalised(role)] as const)}
              error={userForm.errors.role}
            />
            <div class="actions">
              <button type="submit">Invite user</button>
            </div>
          </form>
        ) : null}
      </section>

      <section class="work">
        <h2>Recent orders</h2>
        {orders.rows.length === 0 ? (
          <p class="muted">No orders.</p>
        ) : (
          <Table
            label="Recent orders"
            rows={orders.rows.map(toOrder)}
            columns={[
              { label: "Order", cell: (order) => <a href={`/ops/orders/${order.order_id}`}>{order.order_number}</a> },
              { label: "Pair", cell: (order) => `${order.country_code} ${words(order.number_type)}` },
              { label: "Quantity", cell: (order) => String(order.quantity) },
              { label: "Status", cell: (order) => <Badge status={order.status} /> },
              { label: "Requested", cell: (order) => dateTime(order.requested_at) },
            ]}
          />
        )}
        <p class="muted">{plural(orders.total, "order")} in all.</p>
      </section>
    </>,
    status,
  );
}

/** The account a path's slug names. */
async function pathAccount(c: C): Promise<CustomerRow | undefined> {
  const parsed = slugParams.safeParse({ slug: c.req.param("slug") });
  return parsed.success ? findCustomerBySlug(c.var.db, parsed.data.slug) : undefined;
}

/** Leaves `shown` for the account's page and redirects there (303), so a reload creates nothing again. */
async function redirectToAccount(c: C, shown: AccountShown) {
  await leaveAfterRedirect(c, staffNote(c, ACCOUNT_SHOWN), shown);
  return c.redirect(`${ACCOUNTS}/${shown.slug}`, 303);
}

function noSuchAccount(c: C) {
  return notFoundPage(c, { what: "Account", section: "accounts", back: { href: ACCOUNTS, label: "Back to the accounts" } });
}

/** The accounts pages, mounted under /ops. */
export const accountPages = createRouter<ConsoleEnv>()
  .get("/accounts", (c) => accountsPage(c))
  .post("/accounts", changeGuard(openAccountAction), async (c) => {
    const values = (await readForm(c)).fields;
    const parsed = createCustomerBody.safeParse({ slug: (values.slug ?? "").trim(), name: values.name ?? "" });
    if (!parsed.success) return accountsPage(c, { values, errors: fieldMessages(parsed.error.issues) }, 400);
    const opened = await openAccountAction.run(workOf(c), parsed.data);
    if (!opened.ok) return accountsPage(c, { values, said: refusal(opened.problem) }, opened.problem.status);
    return c.redirect(`${ACCOUNTS}/${opened.value.slug}?done=opened`, 303);
  })
  .get("/accounts/:slug", async (c) => {
    const customer = await pathAccount(c);
    if (!customer) return noSuchAccount(c);
    const shown = await takeAfterRedirect<AccountShown>(c, staffNote(c, ACCOUNT_SHOWN));
    return accountPage(c, customer, shown?.slug === customer.slug ? shown : {});
  })
  .post("/accounts/:slug/keys", changeGuard(issueApiKeyAction), async (c) => {
    const customer = await pathAccount(c);
    if (!customer) return noSuchAccount(c);
    const values = (await readForm(c)).fields;
    const parsed = createApiKeyBody.safeParse({ name: values.name ?? "" });
    if (!parsed.success) return accountPage(c, customer, { key: { values, errors: fieldMessages(parsed.error.issues) } }, 400);
    const created = await issueApiKeyAction.run(workOf(c), customer.slug, parsed.data.name);
    if (!created.ok) return accountPage(c, customer, { said: refusal(created.problem) }, created.problem.status);
    const newKey = { name: created.value.row.name, key: created.value.key };
    return redirectToAccount(c, { slug: customer.slug, newKey });
  })
  .get("/accounts/:slug/keys/:id/revoke", changeGuard(revokeApiKeyAction), async (c) => {
    const customer = await pathAccount(c);
    if (!customer) return noSuchAccount(c);
    const key = await findApiKey(c.var.db, c.req.param("id"));
    const base = `${ACCOUNTS}/${customer.slug}`;
    if (key?.customerId !== customer.id) {
      return notFoundPage(c, { what: "API key", section: "accounts", back: { href: base, label: `Back to ${customer.name}` } });
    }
    return renderPage(
      c,
      { title: "Revoke an API key", section: "accounts" },
      <Confirmation
        token={c.var.csrfToken}
        title={`Revoke the key “${key.name}” of ${customer.name}?`}
        action={`${base}/keys/${key.id}/revoke`}
        button="Revoke the key"
        cancel={base}
      >
        <p>The API refuses the key at once and for good: the account's programs that use it stop working.</p>
      </Confirmation>,
    );
  })
  .post("/accounts/:slug/keys/:id/revoke", changeGuard(revokeApiKeyAction), async (c) => {
    const customer = await pathAccount(c);
    if (!customer) return noSuchAccount(c);
    const revoked = await revokeApiKeyAction.run(workOf(c), c.req.param("id"), customer.id);
    if (!revoked.ok) return accountPage(c, customer, { said: refusal(revoked.problem) }, revoked.problem.status);
    return c.redirect(`${ACCOUNTS}/${customer.slug}?done=revoked`, 303);
  })
  .post("/accounts/:slug/users", changeGuard(addUserAction), async (c) => {
    const customer = await pathAccount(c);
    if (!customer) return noSuchAccount(c);
    const values = (await readForm(c)).fields;
    const parsed = createUserBody.safeParse({
      email: (values.email ?? "").trim(),
      name: values.name ?? "",
      role: values.role ?? "",
    });
    if (!parsed.success) return accountPage(c, customer, { user: { values, errors: fieldMessages(parsed.error.issues) } }, 400);
    const added = await addUserAction.run(workOf(c), customer.slug, parsed.data);
    if (!added.ok) {
      return accountPage(
        c,
        customer,
        { user: { values, errors: problemFields(added.problem) }, said: refusal(added.problem) },
        added.problem.status,
      );
    }
    const invitation = toInvitation(publicOrigin(c), added.value.token, added.value.expiresAt);
    const invited = {
      email: added.value.user.email,
      url: invitation.invitation_url,
      expiresAt: invitation.invitation_expires_at,
    };
    return redirectToAccount(c, { slug: customer.slug, invited });
  });
