// The portal's Orders: the list with the API's filters (parsed by the API's own query schema), status tabs with the
// counts, sorting and paging.

import { pageWindow } from "../db/paging.ts";
import { ORDER_STATUSES } from "../db/schema.ts";
import type { PortalEnv } from "../env.ts";
import { pageMeta } from "../http/pagination.ts";
import { createRouter } from "../http/router.ts";
import { listOrders } from "../orders/list.ts";
import { listOrdersQuery, toOrder, toOrderListQuery } from "../orders/schemas.ts";
import { Badge, Notice, renderPage } from "./layout.tsx";

/** The current query string with some parameters replaced (undefined removes one); page goes back to 1. */
export function withQuery(current: Record<string, string>, changes: Record<string, string | undefined>): string {
  const next = new URLSearchParams({ ...current });
  next.delete("page");
  for (const [name, value] of Object.entries(changes)) {
    if (value === undefined) next.delete(name);
    else next.set(name, value);
  }
  const text = next.toString();
  return text ? `?${text}` : "";
}

export const orderPages = createRouter<PortalEnv>().get("/orders", async (c) => {
  const visitor = c.var.visitor;
  const raw = c.req.query();
  const parsed = listOrdersQuery.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join(".")} ${issue.message}`);
    return renderPage(
      c,
      visitor,
      { title: "Orders", section: "orders" },
      <>
        <h1>Orders</h1>
        <Notice kind="error">
          These filters cannot be used: {problems.join("; ")}. <a href="/portal/orders">Show every order</a>.
        </Notice>
      </>,
      400,
    );
  }
  const query = parsed.data;
  const window = pageWindow(query.page, query.limit);
  const list = await listOrders(c.var.db, visitor.customer.id, toOrderListQuery(query), window);
  const meta = pageMeta(window, list.total);
  const activeStatus = query.status?.length === 1 ? query.status[0] : undefined;
  const all = Object.values(list.statusCounts).reduce((a, b) => a + b, 0);
  return renderPage(
    c,
    visitor,
    { title: "Orders", section: "orders" },
    <>
      <h1>Orders</h1>
      <ul class="tabs" aria-label="Status">
        <li>
          <a href={`/portal/orders${withQuery(raw, { status: undefined })}`} aria-current={query.status ? undefined : "page"}>
            All ({all})
          </a>
        </li>
        {ORDER_STATUSES.map((status) => (
          <li>
            <a href={`/portal/orders${withQuery(raw, { status })}`} aria-current={activeStatus === status ? "page" : undefined}>
              {status} ({list.statusCounts[status]})
            </a>
          </li>
        ))}
      </ul>
      {list.rows.length === 0 ? (
        <div class="card empty">
          <p>No orders match.</p>
        </div>
      ) : (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Order</th>
                <th scope="col">Type</th>
                <th scope="col">Country</th>
                <th scope="col">Quantity</th>
                <th scope="col">Fulfilled</th>
                <th scope="col">Status</th>
                <th scope="col">Requested</th>
              </tr>
            </thead>
            <tbody>
              {list.rows.map(toOrder).map((order) => (
                <tr>
                  <td>{order.order_number}</td>
                  <td>{order.number_type}</td>
                  <td>{order.country_code}</td>
                  <td>{order.quantity}</td>
                  <td>{order.fulfilled_quantity}</td>
                  <td>
                    <Badge status={order.status} />
                  </td>
                  <td>{order.requested_at.slice(0, 16).replace("T", " ")}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <nav class="pager" aria-label="Pages">
        {meta.hasPreviousPage ? <a href={`/portal/orders${withQuery(raw, { page: String(meta.page - 1) })}`}>Previous</a> : null}
        <span class="muted">
          Page {meta.page} of {Math.max(meta.totalPages, 1)} · {meta.total} orders
        </span>
        {meta.hasNextPage ? <a href={`/portal/orders${withQuery(raw, { page: String(meta.page + 1) })}`}>Next</a> : null}
      </nav>
    </>,
  );
});
