// The console's home page: the signed-in member, what awaits the staff and what their role may change. The counts come
// from the trigger-maintained tables (src/orders/queue.ts, src/kyc/queue.ts), so the page costs the same at any size.
import type { Child } from "hono/jsx";
import {
  addCatalogPairAction,
  removeCatalogPairAction,
  removeRequirementsAction,
  setRequirementsAction,
} from "../catalog/use-cases.ts";
import { issueApiKeyAction, openAccountAction, revokeApiKeyAction } from "../customers/use-cases.ts";
import { OPEN_ORDER_STATUSES } from "../db/schema.ts";
import type { ConsoleEnv } from "../env.ts";
import { workOf } from "../http/request-context.ts";
import { createRouter } from "../http/router.ts";
import { AWAITING_STATUSES, reviewQueueGlance } from "../kyc/queue.ts";
import { downloadDocumentAction, reviewProfileAction, reviewVerificationAction } from "../kyc/use-cases.ts";
import { words } from "../lib/words.ts";
import { allocateAction } from "../numbers/use-cases.ts";
import { orderQueueGlance } from "../orders/queue.ts";
import { moveOrderAction } from "../orders/use-cases.ts";
import { mayChange, type OperatorPermission } from "../staff/roles.ts";
import { setStaffAction } from "../staff/use-cases.ts";
import { importStockAction, removeStockNumberAction } from "../stock/use-cases.ts";
import { plural, withQuery } from "../ui/format.ts";
import { renderPage } from "../ui/renderer.tsx";
import { addUserAction } from "../users/use-cases.ts";
import { age } from "./queue-pages.tsx";
import { roleName } from "./role-words.ts";
import { afterSignOut, clearAccessCookie } from "./sign-in.tsx";

/** Each console action as a phrase following "You may". */
const CHANGE_WORDS: readonly (readonly [OperatorPermission, string])[] = [
  [moveOrderAction, "move orders to processing and cancel them"],
  [allocateAction, "allocate numbers to orders, listed or from the stock"],
  [importStockAction, "import numbers into the stock"],
  [removeStockNumberAction, "remove numbers from the stock"],
  [reviewVerificationAction, "review numbers' verifications"],
  [reviewProfileAction, "review verification profiles"],
  [downloadDocumentAction, "open the documents of verifications"],
  [setRequirementsAction, "set what a pair's verifications must hold"],
  [removeRequirementsAction, "remove a pair's requirements"],
  [openAccountAction, "open customer accounts"],
  [issueApiKeyAction, "create accounts' API keys"],
  [revokeApiKeyAction, "revoke accounts' API keys"],
  [addUserAction, "invite accounts' users"],
  [addCatalogPairAction, "add pairs to the catalog"],
  [removeCatalogPairAction, "take pairs out of the catalog"],
  [setStaffAction, "add staff members and change their roles"],
];

/** A queue's counts by status: "2 pending, 1 processing". */
function countsInWords<S extends string>(statuses: readonly S[], counts: Record<S, number>): string {
  return statuses.map((status) => `${counts[status]} ${words(status)}`).join(", ");
}

/** How long ago `time` was, as the queue says an order's age. */
const ago = (time: number, now: number) => age(Math.max(0, Math.floor((now - time) / 3_600_000)));

/** One queue's card: what it counts, a line under it, and the link to the queue. */
function Glance({
  title,
  count,
  href,
  link,
  children,
}: {
  title: string;
  count: string;
  href: string;
  link: string;
  children: Child;
}) {
  return (
    <section class="card" aria-label={title}>
      <h2>{title}</h2>
      <p class="count">{count}</p>
      {children}
      <p>
        <a href={href}>{link}</a>
      </p>
    </section>
  );
}

export const consoleHome = createRouter<ConsoleEnv>()
  .get("/", async (c) => {
    const { operator } = c.var;
    const [orders, reviews] = await Promise.all([orderQueueGlance(c.var.db), reviewQueueGlance(c.var.db)]);
    const { now } = workOf(c);
    const openOrders = OPEN_ORDER_STATUSES.reduce((sum, status) => sum + orders.statusCounts[status], 0);
    const awaiting = AWAITING_STATUSES.reduce((sum, status) => sum + reviews.statusCounts[status], 0);
    const changes = CHANGE_WORDS.filter(([action]) => mayChange(operator, action));
    return renderPage(
      c,
      { title: "Operator console" },
      <>
        <h1>Signed in as {operator.name}</h1>
        <dl class="facts card">
          <dt>E-mail</dt>
          <dd>{operator.actor.type === "staff" ? operator.actor.email : "—"}</dd>
          <dt>Role</dt>
          <dd>{roleName(operator.role)}</dd>
        </dl>

        <div class="glance">
          <Glance title="Open orders" count={String(openOrders)} href="/ops/queue" link="Open the queue">
            <p>
              {countsInWords(OPEN_ORDER_STATUSES, orders.statusCounts)}.
              {orders.oldestPendingAt === null ? null : (
                <> The oldest pending order waits for {ago(orders.oldestPendingAt, now)}.</>
              )}
            </p>
          </Glance>
          <Glance title="Reviews awaiting" count={String(awaiting)} href="/ops/reviews" link="Open the reviews">
            <p>
              {countsInWords(AWAITING_STATUSES, reviews.statusCounts)}.
              {reviews.oldestPendingAt === null ? null : (
                <> The oldest pending submission waits for {ago(reviews.oldestPendingAt, now)}.</>
              )}
            </p>
          </Glance>
          <Glance title="Stock short" count={plural(orders.shortPairs.length, "pair")} href="/ops/stock" link="Open the stock">
            {orders.shortPairs.length === 0 ? (
              <p class="muted">Every pair with open orders has at least one number in stock for each of them.</p>
            ) : (
              <ul aria-label="Pairs short of stock">
                {orders.shortPairs.map((pair) => (
                  <li>
                    <a href={`/ops/queue${withQuery({}, { country_code: pair.countryCode, number_type: pair.numberType })}`}>
                      {pair.countryCode} {words(pair.numberType)}
                    </a>
                    : {plural(pair.openOrders, "open order")}, {pair.stock} in stock
                  </li>
                ))}
              </ul>
            )}
          </Glance>
        </div>

        <h2>What you may do</h2>
        <p>You read every queue, order, account, the catalog, the stock and the audit log.</p>
        {changes.length === 0 ? (
          <p>You change nothing: your role, {roleName(operator.role)}, reads only.</p>
        ) : (
          <ul>
            {changes.map(([, words]) => (
              <li>You may {words}.</li>
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
