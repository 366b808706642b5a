// The console's page frame: section links, the signed-in member and role, and sign-out.
import type { ConsoleEnv } from "../env.ts";
import { CsrfField } from "../ui/components.tsx";
import type { Frame } from "../ui/renderer.tsx";
import { roleName } from "./role-words.ts";

/** The console's sections, each a page every role reads (OPERATOR.md, The console). */
const SECTIONS = [
  { id: "queue", href: "/ops/queue", label: "Queue" },
  { id: "reviews", href: "/ops/reviews", label: "Reviews" },
  { id: "numbers", href: "/ops/numbers", label: "Numbers" },
  { id: "stock", href: "/ops/stock", label: "Stock" },
  { id: "accounts", href: "/ops/accounts", label: "Accounts" },
  { id: "catalog", href: "/ops/catalog", label: "Catalog" },
  { id: "staff", href: "/ops/staff", label: "Staff" },
  { id: "audit", href: "/ops/audit", label: "Audit" },
] as const;

export const consoleFrame: Frame = ({ section, children }, c) => {
  const { operator, csrfToken } = c.var as unknown as ConsoleEnv["Variables"];
  return (
    <>
      <header class="top">
        <a class="brand" href="/ops">
          virtual-numbers · operator
        </a>
        <nav aria-label="Main">
          {SECTIONS.map((s) => (
            <a href={s.href} aria-current={s.id === section ? "page" : undefined}>
              {s.label}
            </a>
          ))}
        </nav>
        <div class="who">
          <span class="person">
            {operator.name} · {roleName(operator.role)}
          </span>
          <form method="post" action="/ops/sign-out" class="inline">
            <CsrfField token={csrfToken} />
            <button type="submit">Sign out</button>
          </form>
        </div>
      </header>
      {children}
    </>
  );
};
