// The console's home: who is signed in, with which role, and what that role may change (OPERATOR.md's matrix); and
// the sign-out, which clears the Access cookie.
import type { ConsoleEnv } from "../env.ts";
import { createRouter } from "../http/router.ts";
import { ADMIN, COMPLIANCE, FULFILMENT } from "../staff/roles.ts";
import { renderPage } from "../ui/renderer.tsx";
import { afterSignOut, clearAccessCookie } from "./sign-in.tsx";

/** What each group of roles may change, as people read it (the roles of src/staff/roles.ts); every role reads everything. */
const MAY_CHANGE = [
  [FULFILMENT, ["order status moves and allocations (listed numbers or from stock)", "stock imports and removals"]],
  [COMPLIANCE, ["verification reviews", "reading verifications' documents"]],
  [ADMIN, ["customer accounts, their API keys, users and invitations", "the orderable catalog", "the staff and their roles"]],
] as const;

export const consoleHome = createRouter<ConsoleEnv>()
  .get("/", (c) => {
    const { operator } = c.var;
    const changes = MAY_CHANGE.filter(([group]) => group.includes(operator.role)).flatMap(([, words]) => words);
    return renderPage(
      c,
      { title: "Operator console" },
      <>
        <h1>Signed in as {operator.name}</h1>
        <dl class="facts">
          <dt>E-mail</dt>
          <dd>{operator.actor.type === "staff" ? operator.actor.email : "—"}</dd>
          <dt>Role</dt>
          <dd>{operator.role}</dd>
        </dl>
        <h2>What you may do</h2>
        <p>You read every queue, order, account, the catalog, the stock and the audit log.</p>
        {changes.length === 0 ? (
          <p>You change nothing: a viewer's role is to look.</p>
        ) : (
          <ul>
            {changes.map((change) => (
              <li>You change {change}.</li>
            ))}
          </ul>
        )}
        <p>
          The operator's API, with the same identity and role, is described at <a href="/docs">/docs</a> (the Admin operations).
        </p>
      </>,
    );
  })
  .post("/sign-out", (c) => {
    clearAccessCookie(c);
    return c.redirect(afterSignOut(c), 303);
  });
