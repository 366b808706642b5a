// The console's frame around every page: the top bar with who is signed in, their role, and the sign-out form.
import type { ConsoleEnv } from "../env.ts";
import { CsrfField } from "../ui/components.tsx";
import type { Frame } from "../ui/renderer.tsx";

export const consoleFrame: Frame = ({ children }, c) => {
  const { operator, csrfToken } = c.var as unknown as ConsoleEnv["Variables"];
  return (
    <>
      <header class="top">
        <a class="brand" href="/ops">
          virtual-numbers · operator
        </a>
        <div class="who">
          <span class="person">
            {operator.name} · {operator.role}
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
