// The portal's Team page; the rules are in src/users/use-cases.ts.
import type { Context } from "hono";
import { pageWindow } from "../db/paging.ts";
import { USER_ROLES, type UserRow } from "../db/schema.ts";
import type { PortalEnv, PortalVisitor } from "../env.ts";
import { pageMeta } from "../http/pagination.ts";
import { publicOrigin } from "../http/public-origin.ts";
import { workOf } from "../http/request-context.ts";
import { createRouter } from "../http/router.ts";
import { Problem } from "../lib/problem.ts";
import { capitalised } from "../lib/words.ts";
import { CsrfField, Pager, StatusTabs, Table } from "../ui/components.tsx";
import { dateTime, doneMessage, withQuery } from "../ui/format.ts";
import { fieldMessages, problemFields, readForm, Select, SortFields, TextInput } from "../ui/forms.tsx";
import { FilterForm, listFilters } from "../ui/list-filters.tsx";
import { renderPage } from "../ui/renderer.tsx";
import { UserStatus } from "../ui/user-status.tsx";
import { createUserBody, listUsersQuery, teamListQuery, toTeamListQuery, updateUserBody } from "../users/schemas.ts";
import { listTeam, TEAM_STATUSES } from "../users/store.ts";
import {
  assignableRoles,
  changeTeammate,
  type InvitedUser,
  inviteTeammate,
  reinviteTeammate,
  type TeamActor,
  whyUntouchable,
} from "../users/use-cases.ts";
import { showOnceAfterRedirect, takeShownOnce } from "./once-shown.ts";
import { AfterRedirect, refusalPage, requireSettingsRole } from "./settings-common.tsx";

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

function InviteFields({ visitor, form }: { visitor: PortalVisitor; form: InviteForm }) {
  const errors = form.errors ?? {};
  return (
    <form method="post" action={TEAM_PATH} class="card stack">
      <h2>Invite a teammate</h2>
      <CsrfField token={visitor.csrfToken} />
      <TextInput name="email" id="invite-email" label="E-mail" type="email" required value={form.email} error={errors.email} />
      <TextInput name="name" id="invite-name" label="Name" required value={form.name} error={errors.name} />
      <Select
        name="role"
        id="invite-role"
        label="Role"
        value={form.role ?? "member"}
        options={assignableRoles(visitor.user, USER_ROLES).map((role) => [role, capitalised(role)] as const)}
        error={errors.role}
        hint="Owners and admins manage keys, the team and webhooks; members work with orders and numbers."
      />
      <div>
        <button type="submit">Invite</button>
      </div>
    </form>
  );
}

function UserActions({ visitor, user }: { visitor: PortalVisitor; user: UserRow }) {
  const base = `${TEAM_PATH}/${user.id}`;
  const self = user.id === visitor.user.id;
  // What the rules would refuse is not offered (the rules still refuse a forged post).
  const problem = whyUntouchable(actorOf(visitor), user);
  if (problem) return <span class="muted">{problem}</span>;
  return (
    <div class="actions">
      <form method="post" action={`${base}/role`} class="actions">
        <CsrfField token={visitor.csrfToken} />
        <select name="role" aria-label={`Role of ${user.name}`}>
          {assignableRoles(visitor.user, USER_ROLES).map((role) => (
            <option value={role} selected={user.role === role}>
              {capitalised(role)}
            </option>
          ))}
        </select>
        <button type="submit" class="secondary">
          Change role
        </button>
      </form>
      {self ? null : (
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
      )}
      <form method="post" action={`${base}/invitation`} class="inline">
        <CsrfField token={visitor.csrfToken} />
        <button type="submit" class="secondary">
          {user.passwordHash === null ? "New invitation link" : "Password reset link"}
        </button>
      </form>
    </div>
  );
}

function TeamFilters({ values, errors }: { values: Record<string, string>; errors: Record<string, string> }) {
  return (
    <FilterForm action={TEAM_PATH} values={values}>
      <TextInput name="search" label="Search" type="search" value={values.search} error={errors.search} hint="E-mail or name" />
      <Select
        name="status"
        label="Status"
        value={values.status}
        blank="Any"
        options={TEAM_STATUSES.map((s) => [s, capitalised(s)] as const)}
        error={errors.status}
      />
      <Select
        name="role"
        label="Role"
        value={values.role}
        blank="Any"
        options={USER_ROLES.map((r) => [r, capitalised(r)] as const)}
        error={errors.role}
      />
      <SortFields query={listUsersQuery} values={values} errors={errors} />
    </FilterForm>
  );
}

async function teamPage(c: Context<PortalEnv>, form: InviteForm, status: 200 | 400 = 200) {
  const visitor = c.var.visitor;
  const page = { title: "Team", section: "team" };
  const filters = listFilters(c, teamListQuery, page, TeamFilters);
  if ("answer" in filters) return filters.answer;
  const { raw, query } = filters;
  const window = pageWindow(query.page, query.limit);
  const list = await listTeam(c.var.db, visitor.customer.id, toTeamListQuery(query), window);
  const meta = pageMeta(window, list.total);
  const shown = status === 200 ? await takeShownOnce(c, "team") : undefined;
  const done = doneMessage(DONE, c.req.query("done"));
  return renderPage(
    c,
    page,
    <>
      <h1>Team</h1>
      <AfterRedirect c={c} id="invitation-link" shown={shown} done={status === 200 ? done : undefined} />
      <InviteFields visitor={visitor} form={form} />
      <h2>Users</h2>
      <StatusTabs path={TEAM_PATH} query={raw} statuses={TEAM_STATUSES} counts={list.statusCounts} filtered={query.status} />
      <TeamFilters values={raw} errors={{}} />
      {list.rows.length === 0 ? (
        <div class="card empty">
          <p>No users match: clear the filters, or invite a teammate above.</p>
        </div>
      ) : (
        <Table
          label="Users"
          rows={list.rows}
          columns={[
            {
              label: "Name",
              cell: (user) => (
                <>
                  {user.name}
                  {user.id === visitor.user.id ? <span class="muted"> (you)</span> : null}
                </>
              ),
            },
            { label: "E-mail", cell: (user) => user.email },
            { label: "Role", cell: (user) => capitalised(user.role) },
            { label: "Status", cell: (user) => <UserStatus user={user} /> },
            { label: "Last sign-in", cell: (user) => (user.lastLoginAt === null ? "never" : dateTime(user.lastLoginAt)) },
            { label: "Actions", cell: (user) => <UserActions visitor={visitor} user={user} /> },
          ]}
        />
      )}
      <Pager meta={meta} noun="user" hrefOf={(page) => `${TEAM_PATH}${withQuery(raw, { page: String(page) })}`} />
    </>,
    status,
  );
}

/** A use case's refusal as a page: its words, and a way back. */
function problemPage(c: Context<PortalEnv>, problem: Problem) {
  return refusalPage(c, "team", problem, TEAM_PATH);
}

/** A role or status no form offers (a forged post): the schema's words. */
function invalidChange(c: Context<PortalEnv>, issues: Parameters<typeof fieldMessages>[0]) {
  const [message] = Object.entries(fieldMessages(issues)).map(([name, text]) => `${capitalised(name)} ${text}`);
  return refusalPage(c, "team", new Problem("validation_error", message ?? "Nothing to change."), TEAM_PATH);
}

/** The link's page after the redirect: shown once, with whom to send it to and until when it works. */
async function showLink(c: Context<PortalEnv>, { user, token, expiresAt }: InvitedUser) {
  await showOnceAfterRedirect(c, "team", {
    label: "Invitation link",
    secret: `${publicOrigin(c)}/portal/invitations/${token}`,
    notice: `Send this link to ${user.name} (${user.email}): it sets a password, works once, and expires ${dateTime(expiresAt)}.`,
  });
  return c.redirect(TEAM_PATH, 303);
}

export const teamPages = createRouter<PortalEnv>()
  .use("/settings/team", requireSettingsRole)
  .use("/settings/team/*", requireSettingsRole)
  .get("/settings/team", (c) => teamPage(c, {}))
  .post("/settings/team", async (c) => {
    const visitor = c.var.visitor;
    const posted = await readForm(c);
    const form = { email: posted.fields.email ?? "", name: posted.fields.name ?? "", role: posted.fields.role ?? "" };
    const parsed = createUserBody.safeParse(form);
    if (!parsed.success) return teamPage(c, { ...form, errors: fieldMessages(parsed.error.issues) }, 400);
    const invited = await inviteTeammate(
      workOf(c),
      { ...actorOf(visitor), customerSlug: visitor.customer.slug },
      { email: parsed.data.email, name: parsed.data.name, role: parsed.data.role },
    );
    if (invited.ok) return showLink(c, invited.value);
    if (invited.problem.errors) return teamPage(c, { ...form, errors: problemFields(invited.problem) }, 400);
    return problemPage(c, invited.problem);
  })
  .post("/settings/team/:id/role", async (c) => {
    // A teammate's role and status are fields of the operator's change: the same schema judges them.
    const parsed = updateUserBody.safeParse({ role: (await readForm(c)).fields.role ?? "" });
    if (!parsed.success || parsed.data.role === undefined) return invalidChange(c, parsed.error?.issues ?? []);
    const changed = await changeTeammate(workOf(c), actorOf(c.var.visitor), c.req.param("id"), { role: parsed.data.role });
    return changed.ok ? c.redirect(`${TEAM_PATH}?done=role`, 303) : problemPage(c, changed.problem);
  })
  .post("/settings/team/:id/status", async (c) => {
    const parsed = updateUserBody.safeParse({ status: (await readForm(c)).fields.status ?? "" });
    // Only these two from a form: a lock is what failed sign-ins do, and "active" also unlocks.
    const status = parsed.data?.status;
    if (status !== "active" && status !== "inactive") return invalidChange(c, parsed.error?.issues ?? []);
    const changed = await changeTeammate(workOf(c), actorOf(c.var.visitor), c.req.param("id"), { status });
    return changed.ok ? c.redirect(`${TEAM_PATH}?done=${status}`, 303) : problemPage(c, changed.problem);
  })
  .post("/settings/team/:id/invitation", async (c) => {
    const issued = await reinviteTeammate(workOf(c), actorOf(c.var.visitor), c.req.param("id"));
    return issued.ok ? showLink(c, issued.value) : problemPage(c, issued.problem);
  });
