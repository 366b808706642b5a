// `npm run bench`: the Worker under load at the size of a large account, on a throwaway local state (never the
// dev state in .wrangler/state). It seeds the data set, starts `wrangler dev`, drives every scenario with
// autocannon from this process, and prints for each: requests per second and their share of /healthz's (measured
// right before it), p50 and p99 latency, errors, D1 calls, rows read and D1 time per request (from the Worker's own log lines,
// which carry D1's result meta), and for order lists the same SQL timed on the SQLite file (the storage floor); then a
// few operations once each (an import, an allocation from stock, an attach of 10,000 numbers to a profile) and a
// number's life (bulk moves of 1,000 numbers, the return-to-stock job, exports and their memory: scripts/bench/life.ts);
// the stock's search over 1,000,000 numbers of one pair, a stock number's bytes, and a reservation of 1,000 from that
// stock ordered and allocated (scripts/bench/search.ts). `--only life` runs only the number's life, `--only search`
// only the stock's search and its reservation. The per-account scenarios run against an account of each size of
// `--sizes` (100,000 and 1,000,000 orders; `--sizes 100k` is the fast run), each size right after the other, and
// print side by side; the bytes an order costs on disk are printed per index.
// Usage: npm run bench -- [--duration 6] [--connections 10] [--only <text>] [--sizes 100k,1m]
//   [--json bench-results.json] [--keep] [--state-in <folder>]  (default /dev/shm when writable, else the system's
//   temporary folder)

import { type ChildProcess, spawnSync } from "node:child_process";
import { accessSync, constants, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { parseArgs } from "node:util";
import autocannon from "autocannon";
import { sign } from "hono/jwt";
import { getPlatformProxy } from "wrangler";
import { createDatabase } from "../src/db/client.ts";
import { putStaff } from "../src/staff/store.ts";
import { accessClaims } from "./access-claims.ts";
import { accessKeyPair } from "./access-keys.ts";
import { ATTACH_NUMBERS } from "./bench/compliance.ts";
import { ALLOCATION_FROM_STOCK, type Fixtures, IMPORTED_NUMBERS, SIZES, type Size, seedDataset } from "./bench/dataset.ts";
import { startWranglerDev, waitForHealth } from "./bench/dev-server.ts";
import { type LifeFixtures, lifeOperations, printLife, seedLife } from "./bench/life.ts";
import { runtimeWorkerd } from "./bench/process-memory.ts";
import { goalMisses, type Measured, printOrderStorage, printSideBySide, printTable, sideBySide } from "./bench/report.ts";
import { type Operation, oneUpload, type Scenario, type SentOnce, scenarios, withoutText } from "./bench/scenarios.ts";
import {
  type SearchFixtures,
  type SendOnce,
  searchOperations,
  searchScenarios,
  seedSearch,
  stockStorage,
} from "./bench/search.ts";
import { buildSearchGrams, deferSearchGrams } from "./bench/search-grams.ts";
import { d1File, orderStorage, readSegments, timeStatements } from "./bench/storage-floor.ts";
import { freePort } from "./ports.ts";
import { SEEDING } from "./seed.ts";

const { values: args } = parseArgs({
  options: {
    duration: { type: "string", default: "6" },
    connections: { type: "string", default: "10" },
    only: { type: "string" },
    json: { type: "string", default: "bench-results.json" },
    keep: { type: "boolean", default: false },
    "state-in": { type: "string" },
    sizes: { type: "string", default: Object.keys(SIZES).join(",") },
  },
});
const sizeNames = Object.keys(SIZES) as Size[];
const askedSizes = args.sizes.split(",").map((size) => size.trim().toLowerCase());
for (const size of askedSizes)
  if (!sizeNames.includes(size as Size)) throw new Error(`--sizes takes ${sizeNames.join(", ")} (comma-separated), not ${size}`);
/** The account sizes the per-account scenarios run at (the number's life and the stock's search use neither). */
const sizes = sizeNames.filter(
  (size) => askedSizes.includes(size) && (size === "100k" || (args.only !== "life" && args.only !== "search")),
);
const duration = Number(args.duration);
const connections = Number(args.connections);

const root = path.resolve(import.meta.dirname, "..");
const wranglerBin = path.join(root, "node_modules", "wrangler", "bin", "wrangler.js");
/**
 * Where the throwaway state lives: memory (/dev/shm) when the machine has it. Every write to local D1 and to the
 * rate limiter's local counters (one per request) ends in an fsync, which costs a disk's latency that the Worker on
 * Cloudflare never pays, and would otherwise dominate the figures of every write.
 */
function stateParent(): string {
  if (args["state-in"]) return args["state-in"];
  try {
    accessSync("/dev/shm", constants.W_OK);
    return "/dev/shm";
  } catch {
    return os.tmpdir();
  }
}
const state = mkdtempSync(path.join(stateParent(), "virtual-numbers-bench-"));
const log = (line: string) => console.log(`[bench] ${line}`);
/** The machine's load over the last 1, 5 and 15 minutes: other work shares its CPUs with the run. */
const loadAverage = () =>
  os
    .loadavg()
    .map((load) => load.toFixed(1))
    .join(", ");

function wrangler(commandArgs: string[]): void {
  const result = spawnSync(process.execPath, [wranglerBin, ...commandArgs], {
    cwd: root,
    encoding: "utf8",
    env: { ...process.env, CI: "true" },
  });
  if (result.status !== 0) throw new Error(`wrangler ${commandArgs.join(" ")} failed:\n${result.stdout}${result.stderr}`);
}

/** D1 figures per scenario, summed from the Worker's log lines (one per request, tagged by X-Request-Id). */
interface D1Totals {
  requests: number;
  calls: number;
  rowsRead: number;
  ms: number;
}
const d1ByRequestId = new Map<string, D1Totals>();
/** The last log line of each scheduled job, by its name. */
const jobLines = new Map<string, Record<string, unknown>>();

function collectLogLines(child: ChildProcess): void {
  createInterface({ input: child.stdout! }).on("line", (line) => {
    if (!line.startsWith("{")) return;
    let entry: { request_id?: string; job?: string; d1_calls?: number; d1_rows_read?: number; d1_ms?: number };
    try {
      entry = JSON.parse(line);
    } catch {
      return;
    }
    if (entry.job) jobLines.set(entry.job, entry);
    if (!entry.request_id?.startsWith("bench.")) return;
    const totals = d1ByRequestId.get(entry.request_id) ?? { requests: 0, calls: 0, rowsRead: 0, ms: 0 };
    totals.requests++;
    totals.calls += entry.d1_calls ?? 0;
    totals.rowsRead += entry.d1_rows_read ?? 0;
    totals.ms += entry.d1_ms ?? 0;
    d1ByRequestId.set(entry.request_id, totals);
  });
  child.stderr!.resume();
}

/** The credentials the scenarios send: the large account's API keys, and a staff member's Access token. */
interface Credentials {
  keys: string[];
  staffToken: string;
}

async function drive(base: string, scenario: Scenario, requestId: string, credentials: Credentials, seconds = duration) {
  let sent = 0;
  const headers: Record<string, string> = { "x-request-id": requestId };
  if (scenario.contentType) headers["content-type"] = scenario.contentType;
  const result = await autocannon({
    url: base,
    connections,
    duration: seconds,
    requests: [
      {
        method: scenario.method,
        path: scenario.path(0),
        headers,
        ...(scenario.body === undefined ? {} : { body: scenario.body }),
        setupRequest: (request) => {
          const n = sent++;
          request.path = scenario.path(n);
          if (scenario.credential === "customer") {
            const keys = scenario.account?.keys ?? credentials.keys;
            request.headers = { ...request.headers, authorization: `Bearer ${keys[n % keys.length]}` };
          }
          if (scenario.credential === "staff") {
            request.headers = { ...request.headers, "cf-access-jwt-assertion": credentials.staffToken };
          }
          return request;
        },
      },
    ],
  });
  return {
    requestsPerSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.non2xx + result.errors + result.timeouts,
  };
}

/** A staff member the queue scenarios sign in as (fulfilment: they also allocate from stock and import). */
const BENCH_STAFF = "bench@operator.example";

/** One POST sent once, not under load: its answer, its time end to end, and its SQLite time from its log line. */
async function sendOnce(
  base: string,
  request: { name: string; requestId: string; path: string; body: string; contentType: string; headers: Record<string, string> },
): Promise<SentOnce> {
  const started = performance.now();
  const answer = await fetch(`${base}${request.path}`, {
    method: "POST",
    headers: { ...request.headers, "content-type": request.contentType, "x-request-id": request.requestId },
    body: request.body,
  });
  const text = await answer.text();
  const wallMs = performance.now() - started;
  await new Promise((resolve) => setTimeout(resolve, 500));
  const d1 = d1ByRequestId.get(request.requestId);
  return { name: request.name, status: answer.status, wallMs, d1Ms: d1?.ms ?? null, d1Calls: d1?.calls ?? null, text };
}

/**
 * The operations measured once each, not under load: an import of 100,000 numbers through the API, an allocation of
 * 10,000 from the stock of 1,000,000, and an attach of 10,000 numbers to a profile (their SQLite time from the
 * Worker's log line).
 */
async function oneOffOperations(base: string, f: Fixtures, credentials: Credentials): Promise<Operation[]> {
  const run = (
    name: string,
    requestId: string,
    path: string,
    body: string,
    contentType: string,
    headers: Record<string, string> = { "cf-access-jwt-assertion": credentials.staffToken },
  ) => sendOnce(base, { name, requestId, path, body, contentType, headers });
  const imported = await run(
    `stock: import ${IMPORTED_NUMBERS.toLocaleString("en-US")} numbers (CSV)`,
    "bench.import",
    "/admin/stock",
    f.importCsv,
    "text/csv",
  );
  const allocated = await run(
    `allocation: ${ALLOCATION_FROM_STOCK.toLocaleString("en-US")} numbers from a stock of 1,000,000`,
    "bench.allocate",
    `/admin/orders/${f.allocationOrderId}/numbers`,
    JSON.stringify({ from_stock: ALLOCATION_FROM_STOCK }),
    "application/json",
  );
  const attach = await run(
    `profile: attach ${ATTACH_NUMBERS.toLocaleString("en-US")} numbers in one request`,
    "bench.attach",
    `/api/customers/${f.slug}/kyc-profiles/kyp_${f.attachProfileId}/numbers`,
    JSON.stringify({ number_ids: f.attachNumberIds.map((id) => `num_${id}`) }),
    "application/json",
    { authorization: `Bearer ${credentials.keys[0]}` },
  );
  // Every number must have joined: a refusal would measure less work than asked.
  let joined = 0;
  try {
    joined = (JSON.parse(attach.text) as { attached?: unknown[] }).attached?.length ?? 0;
  } catch {
    // Not a report: the status says what went wrong.
  }
  return [
    { ...withoutText(imported), goal: "under 60 s", met: imported.status === 201 && imported.wallMs < 60_000 },
    {
      ...withoutText(allocated),
      goal: "well under 1 s of SQLite time",
      met: allocated.status === 201 && (allocated.d1Ms ?? Infinity) < 500,
    },
    {
      ...withoutText(attach),
      name: `${attach.name} (${joined.toLocaleString("en-US")} attached)`,
      goal: "well under 1 s of SQLite time",
      met: attach.status === 200 && joined === ATTACH_NUMBERS && (attach.d1Ms ?? Infinity) < 500,
    },
  ];
}

let dev: ChildProcess | undefined;
function stop(): void {
  if (dev?.pid) {
    try {
      process.kill(-dev.pid, "SIGTERM");
    } catch {
      // Already gone.
    }
  }
  if (!args.keep) rmSync(state, { recursive: true, force: true });
}
process.on("SIGINT", () => {
  stop();
  process.exit(130);
});

try {
  log(`state folder ${state}`);
  wrangler(["d1", "migrations", "apply", "DB", "--local", "--persist-to", state]);
  const seedStarted = performance.now();
  const proxy = await getPlatformProxy<Env>({
    configPath: path.join(root, "wrangler.toml"),
    persist: { path: path.join(state, "v3") },
  });
  let fixtures: Fixtures;
  let lifeFixtures: LifeFixtures;
  let searchFixtures: SearchFixtures;
  try {
    const db = createDatabase(proxy.env.DB);
    await deferSearchGrams(proxy.env.DB);
    fixtures = await seedDataset(db, proxy.env.DB, sizes, log);
    lifeFixtures = await seedLife(db, proxy.env.DB, fixtures, log);
    searchFixtures = await seedSearch(db, proxy.env.DB, log);
    await putStaff(db, SEEDING, BENCH_STAFF, { name: "Bench Fulfilment", role: "fulfilment", status: "enabled" }, Date.now());
  } finally {
    await proxy.dispose();
  }
  const gramsStarted = performance.now();
  buildSearchGrams(d1File(state));
  log(`orders' search grams: built in ${Math.round((performance.now() - gramsStarted) / 1000)} s`);
  const seedingSeconds = Math.round((performance.now() - seedStarted) / 1000);
  log(
    `seeded in ${seedingSeconds} s (load average ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(", ")})`,
  );

  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  // Cloudflare Access stood in for, as npm start does: the Worker trusts this key pair's public half.
  const access = accessKeyPair();
  const audience = "bench-virtual-numbers";
  const issuer = "https://bench.cloudflareaccess.com";
  dev = startWranglerDev(
    root,
    state,
    port,
    {
      ADMIN_TOKEN: crypto.randomUUID(),
      ACCESS_AUD: audience,
      ACCESS_TEAM_DOMAIN: issuer,
      ACCESS_JWKS: JSON.stringify({ keys: [access.publicJwk] }),
    },
    "pipe",
    { testScheduled: true },
  );
  const credentials: Credentials = {
    keys: fixtures.keys,
    staffToken: await sign(
      accessClaims({ audience, issuer }, BENCH_STAFF, 86_400),
      access.privateJwk as unknown as JsonWebKey & { alg: "RS256" },
    ),
  };
  collectLogLines(dev);
  await waitForHealth(base, dev);

  const upload = oneUpload(fixtures);
  const uploaded = await fetch(`${base}${upload.path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${fixtures.keys[0]}`, "content-type": upload.contentType },
    body: upload.body,
  });
  const documentId = ((await uploaded.json()) as { id: string }).id;

  const stockSearch = searchScenarios(fixtures.slug, searchFixtures);
  // `--only search` is the stock's search alone: some order scenarios' names say "search" too.
  const all =
    args.only === "search"
      ? stockSearch
      : [...scenarios(fixtures, documentId), ...stockSearch].filter(
          (s) => (!args.only || s.name.includes(args.only)) && (!s.account || sizes.includes(s.account.size)),
        );
  // Warm-up, not measured: the Worker's code paths compiled, and every key's first last_used_at write done.
  for (const account of fixtures.accounts) {
    for (const key of account.keys) {
      await (
        await fetch(`${base}/api/customers/${account.slug}/orders`, { headers: { authorization: `Bearer ${key}` } })
      ).arrayBuffer();
    }
  }
  for (const scenario of all.filter((s) => s.method === "GET")) await drive(base, scenario, "warm-up", credentials, 1);
  log(`${all.length} scenarios, ${connections} connections, ${duration} s each, against ${base}`);
  // /healthz runs right before every scenario, and each share is against that run: the machine's speed drifts
  // over a run of minutes, and a share between neighbours in time measures the Worker rather than the drift.
  const healthz: Scenario = { name: "GET /healthz", method: "GET", path: () => "/healthz" };
  const healthRuns: number[] = [];
  const measured: Measured[] = [];
  const d1File_ = d1File(state);
  // Statements are only built here, never run through this client.
  const sqlBuilder = createDatabase({} as D1Database);
  for (const [i, scenario] of all.entries()) {
    const health = await drive(base, healthz, "bench.healthz", credentials);
    healthRuns.push(health.requestsPerSecond);
    const requestId = `bench.${i}`;
    const run = await drive(base, scenario, requestId, credentials);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const d1 = d1ByRequestId.get(requestId);
    const per = (total: number | undefined) => (d1 && d1.requests > 0 && total !== undefined ? total / d1.requests : null);
    const row = {
      name: scenario.name,
      size: scenario.account?.size,
      ...run,
      share: run.requestsPerSecond / health.requestsPerSecond,
      d1CallsPerRequest: per(d1?.calls),
      rowsReadPerRequest: per(d1?.rowsRead),
      d1MsPerRequest: per(d1?.ms),
      sqliteMs: scenario.statements
        ? timeStatements(
            d1File_,
            await scenario.statements(sqlBuilder, readSegments(d1File_, scenario.account?.customerId ?? fixtures.customerId)),
          )
        : null,
      goal: scenario.goal,
    };
    measured.push({ ...row, missed: goalMisses(row) });
    log(
      `${scenario.name}${row.size ? ` [${row.size}]` : ""}: ${run.requestsPerSecond.toFixed(0)} req/s, ${row.share.toFixed(2)} of /healthz`,
    );
  }
  const healthMean = healthRuns.reduce((sum, rps) => sum + rps, 0) / Math.max(1, healthRuns.length);
  measured.unshift({
    name: `GET /healthz (mean of ${healthRuns.length} runs)`,
    requestsPerSecond: healthMean,
    share: 1,
    p50: 0,
    p99: 0,
    errors: 0,
    d1CallsPerRequest: 0,
    rowsReadPerRequest: 0,
    d1MsPerRequest: 0,
    sqliteMs: null,
    goal: undefined,
    missed: [],
  });

  const machine = `${os.cpus().length} × ${os.cpus()[0]?.model ?? "cpu"}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, ${os.platform()} ${os.release()}, Node ${process.version}`;
  console.log(
    `\n${machine}; wrangler dev, ${connections} connections, ${duration} s per scenario; load average ${loadAverage()}\n`,
  );
  printTable(measured);
  const bySize = sideBySide(measured, sizes);
  if (bySize.length > 0) {
    console.log(`\nper-account scenarios at ${sizes.join(" and ")} orders (! marks a figure that misses its goal)\n`);
    printSideBySide(bySize, sizes);
  }
  const orders = orderStorage(d1File_);
  printOrderStorage(orders);
  const storage = stockStorage(d1File_);
  console.log(
    `\nstock storage: ${storage.numbers.toLocaleString("en-US")} numbers, ${storage.bytesPerNumber.toFixed(0)} bytes each ` +
      `(stock_numbers, its indexes and the trigram index), ${storage.indexBytesPerNumber.toFixed(0)} of them the trigram index`,
  );
  const send: SendOnce = (name, requestId, path, body, credential) =>
    sendOnce(base, {
      name,
      requestId,
      path,
      body: JSON.stringify(body),
      contentType: "application/json",
      headers:
        credential === "customer"
          ? { authorization: `Bearer ${fixtures.keys[0]}` }
          : { "cf-access-jwt-assertion": credentials.staffToken },
    });
  const operations = [
    ...(args.only ? [] : await oneOffOperations(base, fixtures, credentials)),
    ...(!args.only || args.only === "search" ? await searchOperations(fixtures.slug, send) : []),
  ];
  for (const operation of operations) {
    console.log(
      `${operation.name}: ${operation.status}, ${operation.wallMs.toFixed(0)} ms end to end, ` +
        `${operation.d1Ms?.toFixed(1) ?? "-"} ms of SQLite time in ${operation.d1Calls ?? "-"} D1 call(s)` +
        (operation.goal ? ` (goal: ${operation.goal}; ${operation.met ? "met" : "MISSED"})` : ""),
    );
  }
  const life =
    !args.only || args.only === "life"
      ? await lifeOperations(lifeFixtures, {
          base,
          customerKey: fixtures.keys[0]!,
          staffToken: credentials.staffToken,
          d1Of: (requestId) => d1ByRequestId.get(requestId),
          jobLine: (job) => jobLines.get(job),
          workerdPid: runtimeWorkerd(dev.pid!, state),
        })
      : undefined;
  if (life) printLife(life);
  writeFileSync(
    path.resolve(args.json),
    `${JSON.stringify({ machine, load: os.loadavg(), connections, duration, sizes, seedingSeconds, at: new Date().toISOString(), scenarios: measured, sideBySide: bySize, orderStorage: orders, storage, operations, life }, null, 2)}\n`,
  );
  log(`figures written to ${args.json}`);
} finally {
  stop();
}
