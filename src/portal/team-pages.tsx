// Settings → Team: the account's users with the API's filters; invite a teammate (the link shown once); change a role;
// deactivate, reactivate, unlock; a new invitation link (a password reset). The rules live in src/users/team.ts.
import type { Context } from "hono";
import { pageWindow } from "../db/paging.ts";
import { USER_ROLES, USER_STATUSES, type UserRole, type UserRow } from "../db/schema.ts";
import type { PortalEnv, PortalVisitor } from "../env.ts";
import { pageMeta } from "../http/pagination.ts";
import { publicOrigin } from "../http/public-origin.ts";
import { createRouter } from "../http/router.ts";
import { createUserBody, listUsersQuery, toUserListQuery } from "../users/schemas.ts";
import { listUsers } from "../users/store.ts";
import { changeTeammate, inviteTeammate, reinviteTeammate, type TeamActor, type TeamRefusal } from "../users/team.ts";
import { fieldMessages, withoutBlanks } from "./forms.tsx";
import { Badge, CsrfField, Notice, Pager, renderPage, StatusTabs, withQuery } from "./layout.tsx";
import { FieldError, invalid, OnceSecret, postedForm, refusalPage, requireSettingsRole, when } from "./settings-common.tsx";

const TEAM_PATH = "/portal/settings/team";
const DONE: Record<string, string> = {
  role: "The role is changed.",
  inactive: "The user is deactivated and signed out everywhere.",
  active: "The user is active again.",
};

interface InviteForm {
  email?: string;
  name?: string;
  role?: string;
  errors?: Record<string, string>;
}

function actorOf(visitor: PortalVisitor): TeamActor {
  return { id: visitor.user.id, role: visitor.user.role, customerId: visitor.customer.id };
}

/** The roles the visitor may give: an admin gives no owner role. */
function assignableRoles(visitor: PortalVisitor): readonly UserRole[] {
  return visitor.user.role === "owner" ? USER_ROLES : USER_ROLES.filter((r) => r !== "owner");
}

function InviteFields({ visitor, form }: { visitor: PortalVisitor; form: InviteForm }) {
  const errors = form.errors ?? {};
  return (
    <form method="post" action={TEAM_PATH} class="card stack">
      <h2>Invite a teammate</h2>
      <CsrfField token={visitor.csrfToken} />
      <label>
        E-mail
        <input name="email" type="email" required value={form.email ?? ""} {...invalid("invite-email", errors.email)} />
      </label>
      <FieldError id="invite-email-error" message={errors.email} />
      <label>
        Name
        <input name="name" required value={form.name ?? ""} {...invalid("invite-name", errors.name)} />
      </label>
      <FieldError id="invite-name-error" message={errors.name} />
      <label>
        Role
        <select name="role" {...invalid("invite-role", errors.role)}>
          {assignableRoles(visitor).map((role) => (
            <option value={role} selected={(form.role ?? "member") === role}>
              {role}
            </option>
          ))}
        </select>
      </label>
      <FieldError id="invite-role-error" message={errors.role} />
      <div>
        <button type="submit">Invite</button>
      </div>
    </form>
  );
}

function UserActions({ visitor, user }: { visitor: PortalVisitor; user: UserRow }) {
  const base = `${TEAM_PATH}/${user.id}`;
  return (
    <div class="actions">
      <form method="post" action={`${base}/role`} class="actions">
        <CsrfField token={visitor.csrfToken} />
        <label>
          <span class="visually-hidden">Role of {user.name}</span>
          <select name="role">
            {USER_ROLES.map((role) => (
              <option value={role} selected={user.role === role}>
                {role}
              </option>
            ))}
          </select>
        </label>
        <button type="submit" class="secondary">
          Change role
        </button>
      </form>
      <form method="post" action={`${base}/status`} class="inline">
        <CsrfField token={visitor.csrfToken} />
        {user.status === "active" ? (
          <button type="submit" name="status" value="inactive" class="danger">
            Deactivate
          </button>
        ) : (
          <button type="submit" name="status" value="active" class="secondary">
            {user.status === "locked" ? "Unlock" : "Reactivate"}
          </button>
        )}
      </form>
      <form method="post" action={`${base}/invitation`} class="inline">
        <CsrfField token={visitor.csrfToken} />
        <button type="submit" class="secondary">
          New invitation link
        </button>
      </form>
    </div>
  );
}

async function teamPage(c: Context<PortalEnv>, form: InviteForm, top?: unknown, status: 200 | 400 = 200) {
  const visitor = c.var.visitor;
  // An empty filter of the form means no filter.
  const raw = withoutBlanks(c.req.query());
  const parsed = listUsersQuery.safeParse(raw);
  const query = parsed.success ? parsed.data : listUsersQuery.parse({});
  const window = pageWindow(query.page, query.limit);
  const list = await listUsers(c.var.db, visitor.customer.id, toUserListQuery(query), window);
  const meta = pageMeta(window, list.total);
  const done = DONE[c.req.query("done") ?? ""];
  return renderPage(
    c,
    visitor,
    { title: "Team", section: "team" },
    <>
      <h1>Team</h1>
      {done && !top ? <Notice kind="success">{done}</Notice> : null}
      {parsed.success ? null : <Notice kind="error">These filters cannot be used; showing everyone.</Notice>}
      {top}
      <InviteFields visitor={visitor} form={form} />
      <h2>Users</h2>
      <StatusTabs path={TEAM_PATH} query={raw} statuses={USER_STATUSES} counts={list.statusCounts} filtered={query.status} />
      <form method="get" action={TEAM_PATH} class="filters">
        <label>
          Search
          <input name="search" type="search" value={query.search ?? ""} />
        </label>
        <label>
          Status
          <select name="status">
            <option value="">any</option>
            {USER_STATUSES.map((s) => (
              <option value={s} selected={query.status?.length === 1 && query.status[0] === s}>
                {s} ({list.statusCounts[s]})
              </option>
            ))}
          </select>
        </label>
        <label>
          Role
          <select name="role">
            <option value="">any</option>
            {USER_ROLES.map((r) => (
              <option value={r} selected={query.role?.length === 1 && query.role[0] === r}>
                {r}
              </option>
            ))}
          </select>
        </label>
        <label>
          Sort by
          <select name="sort_by">
            {(["created_at", "name", "email", "role", "status", "last_login_at"] as const).map((key) => (
              <option value={key} selected={query.sort_by === key}>
                {key.replaceAll("_", " ")}
              </option>
            ))}
          </select>
        </label>
        <label>
          Order
          <select name="sort_order">
            <option value="desc" selected={query.sort_order === "desc"}>
              descending
            </option>
            <option value="asc" selected={query.sort_order === "asc"}>
              ascending
            </option>
          </select>
        </label>
        <button type="submit" class="secondary">
          Filter
        </button>
      </form>
      {list.rows.length === 0 ? (
        <div class="card empty">
          <p>No users match: clear the filters, or invite a teammate above.</p>
        </div>
      ) : (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">E-mail</th>
                <th scope="col">Role</th>
                <th scope="col">Status</th>
                <th scope="col">Last sign-in</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {list.rows.map((user) => (
                <tr id={`user-${user.id}`}>
                  <td>
                    {user.name}
                    {user.id === visitor.user.id ? <span class="muted"> (you)</span> : null}
                  </td>
                  <td>{user.email}</td>
                  <td>{user.role}</td>
                  <td>
                    <Badge status={user.status} />
                  </td>
                  <td>{when(user.lastLoginAt)}</td>
                  <td>
                    <UserActions visitor={visitor} user={user} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager meta={meta} noun="users" hrefOf={(page) => `${TEAM_PATH}${withQuery(raw, { page: String(page) })}`} />
    </>,
    status,
  );
}

function refusal(c: Context<PortalEnv>, refused: TeamRefusal) {
  if (refused.reason === "refused") return refusalPage(c, c.var.visitor, "team", 409, refused.message, TEAM_PATH);
  return refusalPage(c, c.var.visitor, "team", 404, "There is no such user in this account.", TEAM_PATH);
}

function invitationLink(c: Context<PortalEnv>, user: UserRow, token: string, expiresAt: number) {
  return (
    <>
      <Notice kind="success">
        Send this link to {user.name} ({user.email}): it sets a password, works once, and expires {when(expiresAt)} UTC.
      </Notice>
      <OnceSecret c={c} id="invitation-link" label="Invitation link" secret={`${publicOrigin(c)}/portal/invitations/${token}`} />
    </>
  );
}

export const teamPages = createRouter<PortalEnv>()
  .use("/settings/team", requireSettingsRole)
  .use("/settings/team/*", requireSettingsRole)
  .get("/settings/team", (c) => teamPage(c, {}))
  .post("/settings/team", async (c) => {
    const visitor = c.var.visitor;
    const posted = await postedForm(c);
    const form = { email: posted.text("email"), name: posted.text("name"), role: posted.text("role") };
    const parsed = createUserBody.safeParse(form);
    if (!parsed.success) return teamPage(c, { ...form, errors: fieldMessages(parsed.error.issues) }, undefined, 400);
    const invited = await inviteTeammate(
      c.var.db,
      { ...actorOf(visitor), customerSlug: visitor.customer.slug },
      { email: parsed.data.email, name: parsed.data.name, role: parsed.data.role },
      Date.now(),
    );
    if (!invited.ok) {
      if (invited.reason === "duplicate") {
        return teamPage(c, { ...form, errors: { email: "This account already has a user with this e-mail" } }, undefined, 400);
      }
      return refusal(c, invited);
    }
    const { user, token, expiresAt } = invited.value;
    return teamPage(c, {}, invitationLink(c, user, token, expiresAt));
  })
  .post("/settings/team/:id/role", async (c) => {
    const role = (await postedForm(c)).text("role");
    if (!USER_ROLES.includes(role as UserRole)) {
      return refusalPage(c, c.var.visitor, "team", 409, `The role must be one of ${USER_ROLES.join(", ")}.`, TEAM_PATH);
    }
    const changed = await changeTeammate(
      c.var.db,
      actorOf(c.var.visitor),
      c.req.param("id"),
      { role: role as UserRole },
      Date.now(),
    );
    return changed.ok ? c.redirect(`${TEAM_PATH}?done=role`, 303) : refusal(c, changed);
  })
  .post("/settings/team/:id/status", async (c) => {
    // Only these two: a lock is what failed sign-ins do, and "active" also unlocks.
    const status = (await postedForm(c)).text("status");
    if (status !== "active" && status !== "inactive") {
      return refusalPage(c, c.var.visitor, "team", 409, "The status must be active or inactive.", TEAM_PATH);
    }
    const changed = await changeTeammate(c.var.db, actorOf(c.var.visitor), c.req.param("id"), { status }, Date.now());
    return changed.ok ? c.redirect(`${TEAM_PATH}?done=${status}`, 303) : refusal(c, changed);
  })
  .post("/settings/team/:id/invitation", async (c) => {
    const issued = await reinviteTeammate(c.var.db, actorOf(c.var.visitor), c.req.param("id"), Date.now());
    if (!issued.ok) return refusal(c, issued);
    const { user, token, expiresAt } = issued.value;
    return teamPage(c, {}, invitationLink(c, user, token, expiresAt));
  });
