// The audiences: each a router with its own Env type and its guard applied once, where it is mounted. A route is
// reachable only through the audience it is added to, so no route can be left without its guard.
import type { AppEnv, CustomerEnv, OperatorEnv, PortalEnv } from "../env.ts";
import { requireSession } from "../portal/session-guard.tsx";
import { rateLimitByKey, requireApiKey, requireOperator, requireOwnAccount } from "./auth.ts";
import { idempotency, OPERATOR_SCOPE } from "./idempotency.ts";
import { createRouter } from "./router.ts";

/** Anyone: health, the API description, its reference page, the problem types. */
export function publicAudience() {
  return createRouter<AppEnv>();
}

/**
 * Customers, by API key: the key is checked and its request budget spent before any of the audience's routes runs,
 * a route under /customers/{customer_slug} answers only for the key's own account, and idempotency keys are the
 * account's.
 */
export function customerAudience() {
  const router = createRouter<CustomerEnv>();
  router.use(
    requireApiKey,
    rateLimitByKey,
    idempotency<CustomerEnv>((c) => c.var.principal.customerId),
  );
  router.use("/customers/:customer_slug/*", requireOwnAccount);
  return router;
}

/** The operator, by ADMIN_TOKEN, with idempotency keys of its own. */
export function operatorAudience() {
  const router = createRouter<OperatorEnv>();
  router.use(
    requireOperator,
    idempotency<OperatorEnv>(() => OPERATOR_SCOPE),
  );
  return router;
}

/**
 * People of an account, by the portal's session cookie (and on every form, its CSRF token). Mounted at /portal after
 * the portal's public pages (sign-in, invitations), whose routes answer before this guard is reached.
 */
export function portalAudience() {
  const router = createRouter<PortalEnv>();
  router.use(requireSession);
  return router;
}
