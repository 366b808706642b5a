// The console's audience: staff signed in through Cloudflare Access, with the page frame and a CSRF token on each form.
import type { MiddlewareHandler } from "hono";
import type { ConsoleEnv } from "../env.ts";
import { createRouter } from "../http/router.ts";
import { requireConsoleOperator } from "../staff/guard.ts";
import { csrfTokenFor, refusedForm } from "../ui/form-guard.tsx";
import { pageRenderer } from "../ui/renderer.tsx";
import { consoleFrame } from "./frame.tsx";
import { signedOutPath } from "./sign-in.tsx";

/**
 * Requires a staff member signed in through Access; their Access token keys the forms' CSRF token. The ADMIN_TOKEN is
 * for automation and has no console: it uses /admin.
 */
const requireStaffSession: MiddlewareHandler<ConsoleEnv> = async (c, next) => {
  const { accessToken } = c.var.operator;
  if (accessToken === undefined) return c.redirect(signedOutPath, 303);
  const csrfToken = await csrfTokenFor(accessToken);
  const expired = await refusedForm(c, csrfToken);
  if (expired) return expired;
  c.set("csrfToken", csrfToken);
  await next();
};

export function consoleAudience() {
  const router = createRouter<ConsoleEnv>();
  router.use(requireConsoleOperator, requireStaffSession, pageRenderer(consoleFrame));
  return router;
}
