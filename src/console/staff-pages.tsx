// The console's staff page.
import type { Context } from "hono";
import { STAFF_ROLES, STAFF_STATUSES } from "../db/schema.ts";
import type { ConsoleEnv } from "../env.ts";
import { pageMeta } from "../http/pagination.ts";
import { workOf } from "../http/request-context.ts";
import { createRouter } from "../http/router.ts";
import { capitalised } from "../lib/words.ts";
import { changeGuard, mayChange } from "../staff/roles.ts";
import { putStaffBody, staffEmailParams } from "../staff/schemas.ts";
import { findStaff, listStaff } from "../staff/store.ts";
import { setStaffAction } from "../staff/use-cases.ts";
import { Badge, CsrfField, Pager, Table } from "../ui/components.tsx";
import { dateTime } from "../ui/format.ts";
import { fieldMessages, readForm, Select, TextInput } from "../ui/forms.tsx";
import { renderPage } from "../ui/renderer.tsx";
import { listWindow, noticeOf, type PostedForm, refusal } from "./admin-common.tsx";

type C = Context<ConsoleEnv>;

const STAFF = "/ops/staff";
const STAFF_DONE: Record<string, string> = { saved: "The staff member is saved." };

async function staffPage(c: C, form: PostedForm = {}, status = 200) {
  const window = listWindow(c);
  const { rows, total } = await listStaff(c.var.db, window);
  const meta = pageMeta(window, total);
  const admin = mayChange(c.var.operator, setStaffAction);
  // "Change" on a row fills the form with that member.
  const editing = form.values ? undefined : c.req.query("email");
  const chosen = editing ? await findStaff(c.var.db, editing) : undefined;
  const values =
    form.values ?? (chosen ? { email: chosen.email, name: chosen.name, role: chosen.role, status: chosen.status } : {});
  const errors = form.errors ?? {};
  return renderPage(
    c,
    { title: "Staff", section: "staff" },
    <>
      <h1>Staff</h1>
      {noticeOf(c, STAFF_DONE, form.said)}
      <Table
        label="Staff"
        rows={rows}
        columns={[
          { label: "E-mail", cell: (row) => row.email },
          { label: "Name", cell: (row) => row.name },
          { label: "Role", cell: (row) => capitalised(row.role) },
          { label: "Status", cell: (row) => <Badge status={row.status} /> },
          { label: "Changed", cell: (row) => dateTime(row.updatedAt) },
          ...(admin
            ? [
                {
                  label: "Action",
                  cell: (row: { email: string }) => (
                    <a href={`${STAFF}?email=${encodeURIComponent(row.email)}#member`} aria-label={`Change ${row.email}`}>
                      Change
                    </a>
                  ),
                },
              ]
            : []),
        ]}
      />
      <Pager meta={meta} noun="member" hrefOf={(n) => `${STAFF}?page=${n}`} />
      {admin ? (
        <form method="post" action={STAFF} class="card stack" id="member" novalidate>
          <h2>Add or change a member</h2>
          <CsrfField token={c.var.csrfToken} />
          <TextInput
            name="email"
            label="E-mail"
            type="email"
            required
            value={values.email}
            error={errors.email}
            hint="The e-mail their Cloudflare Access sign-in carries."
          />
          <TextInput name="name" label="Name" required value={values.name} error={errors.name} />
          <Select
            name="role"
            label="Role"
            value={values.role ?? "viewer"}
            options={STAFF_ROLES.map((role) => [role, capitalised(role)] as const)}
            error={errors.role}
          />
          <Select
            name="status"
            label="Status"
            value={values.status ?? "enabled"}
            options={STAFF_STATUSES.map((status) => [status, capitalised(status)] as const)}
            error={errors.status}
            hint="A disabled member is refused; nobody is deleted, so the audit log keeps its people."
          />
          <div>
            <button type="submit">Save staff member</button>
          </div>
        </form>
      ) : null}
    </>,
    status,
  );
}

/** The staff page, mounted under /ops. */
export const staffPages = createRouter<ConsoleEnv>()
  .get("/staff", (c) => staffPage(c))
  .post("/staff", changeGuard(setStaffAction), async (c) => {
    const values = (await readForm(c)).fields;
    const email = staffEmailParams.safeParse({ email: (values.email ?? "").trim() });
    const settings = putStaffBody.safeParse({ name: values.name ?? "", role: values.role ?? "", status: values.status ?? "" });
    if (!email.success || !settings.success) {
      const errors = {
        ...(email.success ? {} : fieldMessages(email.error.issues)),
        ...(settings.success ? {} : fieldMessages(settings.error.issues)),
      };
      return staffPage(c, { values, errors }, 400);
    }
    const put = await setStaffAction.run(workOf(c), email.data.email, settings.data);
    if (!put.ok) return staffPage(c, { values, said: refusal(put.problem) }, put.problem.status);
    return c.redirect(`${STAFF}?done=saved`, 303);
  });
