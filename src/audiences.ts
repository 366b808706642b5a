// The API's audiences, each a router with its own Env type and guard. A route is reachable only through the audience it
// is added to, so no route can lack its guard. The portal's audience is in src/portal/audience.ts, keeping JSX out.

import { rateLimitByKey, requireApiKey, requireOwnAccount } from "./customers/api-key-guard.ts";
import type { AppEnv, CustomerEnv, OperatorEnv } from "./env.ts";
import { idempotency, OPERATOR_SCOPE } from "./http/idempotency.ts";
import { createRouter } from "./http/router.ts";
import { requireOperator } from "./staff/guard.ts";

/** Anyone: health, the API description, its reference page, the problem types. */
export function publicAudience() {
  return createRouter<AppEnv>();
}

/**
 * Customers, by API key: the key is checked and its request budget spent before any of the audience's routes runs,
 * a route under /customers/{customer_slug} answers only for the key's own account, and idempotency keys are the
 * account's. Idempotency comes last: a stored answer is looked up only for a request its guards let through.
 */
export function customerAudience() {
  const router = createRouter<CustomerEnv>();
  router.use(requireApiKey, rateLimitByKey);
  router.use("/customers/:customer_slug/*", requireOwnAccount);
  router.use(idempotency<CustomerEnv>((c) => c.var.principal.customerId));
  return router;
}

/**
 * The operator: a staff member by their Cloudflare Access identity, or the ADMIN_TOKEN, with a role the operation
 * allows (src/staff/guard.ts); each staff member's idempotency keys are their own, and the token's are apart. The
 * guard judges the role before idempotency runs: a stored answer is replayed only to whom the operation allows now.
 */
export function operatorAudience() {
  const router = createRouter<OperatorEnv>();
  router.use(
    requireOperator,
    idempotency<OperatorEnv>(({ var: { operator } }) =>
      operator.actor.type === "staff" ? `staff:${operator.actor.email}` : OPERATOR_SCOPE,
    ),
  );
  return router;
}
