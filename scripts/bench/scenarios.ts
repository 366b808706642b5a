// What the benchmark drives: every scenario of the performance goals, with the goal it is held to.
import type { Database } from "../../src/db/client.ts";
import { pageWindow } from "../../src/db/paging.ts";
import { orderListStatements, type Segment } from "../../src/orders/list.ts";
import { listOrdersQuery, toOrderListQuery } from "../../src/orders/schemas.ts";
import type { Fixtures, SizedAccount } from "./dataset.ts";

/** A statement as D1 receives it, to time the same SQL on the SQLite file. */
export interface Statement {
  sql: string;
  params: unknown[];
}

export interface Goal {
  /** Least requests per second, as a share of /healthz's in the same run. */
  minShare?: number;
  /** Most D1 rows read per request. */
  maxRowsRead?: number;
  /** Most SQLite time per request, in milliseconds (the list's statements timed on the SQLite file). */
  maxSqliteMs?: number;
  /** Most SQLite time per request, in milliseconds, as D1 reports it (the Worker's log lines' d1_ms). */
  maxD1Ms?: number;
}

/** A request sent once, not under load (bench.ts's sendOnce): its answer's status and text, and its times. */
export interface SentOnce {
  name: string;
  status: number;
  wallMs: number;
  /** SQLite time and D1 calls from the request's log line. */
  d1Ms: number | null;
  d1Calls: number | null;
  text: string;
}

/** A one-off operation as printed: the request without its answer, and the goal it is held to. */
export interface Operation extends Omit<SentOnce, "text"> {
  goal?: string;
  met?: boolean;
}

export const withoutText = ({ text: _, ...operation }: SentOnce): Operation => operation;

export interface Scenario {
  name: string;
  method: "GET" | "POST" | "PUT";
  /** The path of the n-th request (most scenarios ask the same thing every time). */
  path: (n: number) => string;
  /**
   * Sent with an account's API keys (spread over the keys: `account`'s, else the large account's), or a staff member's
   * Access token; or neither.
   */
  credential?: "customer" | "staff";
  /** The sized account a per-account scenario runs against (its keys, and its orders for the storage floor). */
  account?: SizedAccount;
  body?: string | Buffer;
  contentType?: string;
  goal?: Goal;
  /**
   * The statements of an orders list request, to time on the SQLite file; `segments` are the account's, as the
   * Worker has them when it picks a plan.
   */
  statements?: (db: Database, segments: Segment[]) => Promise<Statement[]>;
}

const ORDER_LIST_GOAL: Goal = { minShare: 0.5, maxRowsRead: 1000 };
const RANGE_GOAL: Goal = { minShare: 0.3, maxSqliteMs: 15 };

/** A valid PDF of `size` bytes: a header, a comment as filler, and the end marker the file checks look for. */
export function pdfOf(size: number): Buffer {
  const head = Buffer.from("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n", "latin1");
  const tail = Buffer.from("\n%%EOF\n");
  return Buffer.concat([head, Buffer.alloc(size - head.length - tail.length, "%"), tail]);
}

export const UPLOAD_BOUNDARY = "vn-bench-boundary";

/** A multipart upload of `file` under `filename` as an address proof. */
export function multipartUpload(file: Buffer, filename: string): Buffer {
  const part = (headers: string, content: Buffer | string) =>
    Buffer.concat([Buffer.from(`--${UPLOAD_BOUNDARY}\r\n${headers}\r\n\r\n`), Buffer.from(content), Buffer.from("\r\n")]);
  return Buffer.concat([
    part('Content-Disposition: form-data; name="document_type"', "address_proof"),
    part(`Content-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: application/pdf`, file),
    Buffer.from(`--${UPLOAD_BOUNDARY}--\r\n`),
  ]);
}

/**
 * The scenarios of one sized account: its orders lists (every enumeration filter, sort, range, search and a deep page),
 * one order read, created and updated, and its numbers lists.
 */
function accountScenarios(a: SizedAccount): Scenario[] {
  const orders = `/api/customers/${a.slug}/orders`;
  const list = (name: string, query: string, goal: Goal): Scenario => ({
    name,
    method: "GET",
    path: () => (query ? `${orders}?${query}` : orders),
    credential: "customer",
    account: a,
    goal,
    statements: async (db, segments) => {
      const parsed = listOrdersQuery.parse(Object.fromEntries(new URLSearchParams(query)));
      const window = pageWindow(parsed.page, parsed.limit);
      const statements = await orderListStatements(db, a.customerId, toOrderListQuery(parsed), window, segments);
      return statements.map((statement) => statement.toSQL());
    },
  });
  const numbers = (name: string, query: string): Scenario => ({
    name: `numbers: ${name}`,
    method: "GET",
    path: () => `/api/customers/${a.slug}/numbers${query ? `?${query}` : ""}`,
    credential: "customer",
    account: a,
    goal: { minShare: 0.5 },
  });
  const sorts = ["order_number", "number_type", "country_code", "quantity", "status", "requested_at", "fulfilled_at"];
  return [
    list("orders: default page", "", ORDER_LIST_GOAL),
    list("orders: pending, US+GB, mobile", "status=pending&country_code=US,GB&number_type=mobile", ORDER_LIST_GOAL),
    list(
      "orders: pending, US+GB, by quantity, 50",
      "status=pending&country_code=US,GB&sort_by=quantity&limit=50",
      ORDER_LIST_GOAL,
    ),
    list("orders: cancelled", "status=cancelled", ORDER_LIST_GOAL),
    list("orders: toll_free", "number_type=toll_free", ORDER_LIST_GOAL),
    list("orders: JP, processing (rare)", "country_code=JP&status=processing", ORDER_LIST_GOAL),
    ...sorts.map((sort) => list(`orders: sort_by=${sort}`, `sort_by=${sort}`, ORDER_LIST_GOAL)),
    list("orders: sort_by=fulfilled_at asc", "sort_by=fulfilled_at&sort_order=asc", ORDER_LIST_GOAL),
    {
      name: "orders: get one",
      method: "GET",
      path: () => `${orders}/${a.pendingOrderId}`,
      credential: "customer",
      account: a,
      goal: { minShare: 0.5, maxRowsRead: 1000 },
    },
    {
      name: "orders: create",
      method: "POST",
      path: () => orders,
      credential: "customer",
      account: a,
      body: JSON.stringify({ number_type: "mobile", country_code: "US", quantity: 25, notes: "Benchmark campaign" }),
      contentType: "application/json",
      goal: { minShare: 0.5, maxRowsRead: 1000 },
    },
    {
      name: "orders: update",
      method: "PUT",
      path: () => `${orders}/${a.pendingOrderId}`,
      credential: "customer",
      account: a,
      body: JSON.stringify({ quantity: 120, notes: "Benchmark update" }),
      contentType: "application/json",
      goal: { minShare: 0.5, maxRowsRead: 1000 },
    },
    list("orders: requested in one quarter", "requested_from=2026-04-01&requested_to=2026-06-30", RANGE_GOAL),
    list("orders: quantity 100-200", "quantity_min=100&quantity_max=200", RANGE_GOAL),
    list("orders: search rare (campaign 123)", `search=${encodeURIComponent("campaign 123")}`, RANGE_GOAL),
    list("orders: page 5000", "page=5000", RANGE_GOAL),
    list("orders: search a quarter (berlin)", "search=berlin", { maxSqliteMs: 100 }),
    numbers("default page", ""),
    // A twentieth of the numbers, and a pair of four in a hundred: rare filters that a scan in the default order
    // meets late.
    numbers("suspended", "status=suspended"),
    numbers("JP, toll_free", "country_code=JP&number_type=toll_free"),
    numbers("one order's (order_id)", `order_id=${a.numbersOrderId}`),
  ];
}

/**
 * Every scenario: the per-account ones at each size side by side (each one's runs next to each other in time), then
 * the large account's compliance, users and KYC, and the operator's.
 */
export function scenarios(f: Fixtures, documentId: string): Scenario[] {
  const perAccount = f.accounts.map(accountScenarios);
  // Uploads rotate over the verifications so none reaches its 20-document limit.
  const uploadPath = (n: number) => `/v1/numbers/num_${f.verifiedNumberIds[n % f.verifiedNumberIds.length]}/KYC/files`;
  return [
    ...perAccount[0]!.flatMap((_, i) => perAccount.map((list) => list[i]!)),
    ...complianceScenarios(f),
    {
      name: "users: default page",
      method: "GET",
      path: () => `/api/customers/${f.slug}/users`,
      credential: "customer",
      goal: { minShare: 0.5 },
    },
    {
      name: "KYC: get",
      method: "GET",
      path: () => `/v1/numbers/num_${f.verifiedNumberIds[0]}/KYC`,
      credential: "customer",
    },
    {
      name: "KYC: upload 1 MiB",
      method: "POST",
      path: uploadPath,
      credential: "customer",
      body: multipartUpload(pdfOf(1024 * 1024), "statement.pdf"),
      contentType: `multipart/form-data; boundary=${UPLOAD_BOUNDARY}`,
    },
    {
      name: "KYC: download 1 MiB",
      method: "GET",
      path: () => `/v1/kyc/documents/${documentId}/download`,
      credential: "customer",
    },
    ...operatorScenarios(f),
  ];
}

/**
 * The large account's numbers filtered by its main profile (9,000 of 20,000) and by expiry (a quarter ahead), and a
 * number's evaluation (through its profile, against a pair with requirements).
 */
function complianceScenarios(f: Fixtures): Scenario[] {
  const numbers = (name: string, query: string): Scenario => ({
    name,
    method: "GET",
    path: () => `/api/customers/${f.slug}/numbers?${query}`,
    credential: "customer",
    goal: { minShare: 0.5 },
  });
  const count = (n: number) => n.toLocaleString("en-US");
  return [
    numbers(`numbers: kyc_profile_id (${count(f.mainProfileNumbers)})`, `kyc_profile_id=kyp_${f.mainProfileId}`),
    numbers(`numbers: kyc_expires_before (${count(f.expiringNumbers)})`, `kyc_expires_before=${f.expiresBefore}`),
    {
      name: "KYC: evaluation (profile's number)",
      method: "GET",
      path: () => `/v1/numbers/num_${f.evaluatedNumberId}/KYC/evaluation`,
      credential: "customer",
      goal: { minShare: 0.5 },
    },
  ];
}

/** The staff's queues over 1,000 accounts (100,000 open orders, 10,000 verifications) and the stock's counts. */
function operatorScenarios(f: Fixtures): Scenario[] {
  const queue = (name: string, path: string): Scenario => ({
    name,
    method: "GET",
    path: () => path,
    credential: "staff",
    goal: { minShare: 0.5, maxRowsRead: 1000 },
  });
  return [
    queue("queue: open orders, default page", "/admin/orders"),
    queue("queue: open orders of one account", `/admin/orders?customer_slug=${f.queueSlug}`),
    queue("queue: reviews, default page", "/admin/kyc"),
    queue("queue: reviews of one account", `/admin/kyc?customer_slug=${f.queueSlug}`),
    {
      name: "stock: summary",
      method: "GET",
      path: () => "/admin/stock/summary",
      credential: "staff",
      goal: { minShare: 0.5 },
    },
    // The console's pages of the same queues: the page rendered around the same reads.
    { name: "console: queue page", method: "GET", path: () => "/ops/queue", credential: "staff", goal: { minShare: 0.3 } },
    { name: "console: reviews page", method: "GET", path: () => "/ops/reviews", credential: "staff", goal: { minShare: 0.3 } },
  ];
}

/** The upload request the download scenario's document comes from. */
export function oneUpload(f: Fixtures): { path: string; body: Buffer; contentType: string } {
  return {
    path: `/v1/numbers/num_${f.verifiedNumberIds[0]}/KYC/files`,
    body: multipartUpload(pdfOf(1024 * 1024), "statement.pdf"),
    contentType: `multipart/form-data; boundary=${UPLOAD_BOUNDARY}`,
  };
}
