// `npm run bench`: latency and throughput of the main endpoints against a local `npm start` (loopback only).
// It works in an account of its own (made through the admin API) so the demo account stays as seeded.
// Usage: npm run bench -- [requests per scenario, default 300] [concurrency, default 8]
import { readFileSync } from "node:fs";
import path from "node:path";

const base = "http://127.0.0.1:8787";
const requests = Math.min(Number(process.argv[2] ?? 300), 550); // stays under the 600/min budget of one key
const concurrency = Number(process.argv[3] ?? 8);
const devVars = readFileSync(path.resolve(import.meta.dirname, "..", ".dev.vars"), "utf8");
const adminToken = devVars.match(/^ADMIN_TOKEN\s*=\s*"?([^"\n]+)"?/m)?.[1];
const admin = { Authorization: `Bearer ${adminToken}`, "Content-Type": "application/json" };

interface Scenario {
  name: string;
  request: () => Promise<Response>;
}

async function run(scenario: Scenario): Promise<void> {
  const latencies: number[] = [];
  let failures = 0;
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < requests) {
        next++;
        const t0 = performance.now();
        const response = await scenario.request();
        await response.arrayBuffer();
        latencies.push(performance.now() - t0);
        if (response.status >= 400) failures++;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!.toFixed(1);
  console.log(
    `${scenario.name.padEnd(34)} ${String(latencies.length).padStart(5)} req  ${(latencies.length / seconds).toFixed(0).padStart(5)} req/s  ` +
      `p50 ${at(0.5).padStart(6)} ms  p95 ${at(0.95).padStart(6)} ms  p99 ${at(0.99).padStart(6)} ms  errors ${failures}`,
  );
}

const health = await fetch(`${base}/healthz`).catch(() => undefined);
if (!health?.ok) {
  console.error(`No server at ${base}: run \`npm start\` in another terminal first.`);
  process.exit(1);
}

const slug = `bench-${Date.now().toString(36)}`;
await fetch(`${base}/admin/customers`, { method: "POST", headers: admin, body: JSON.stringify({ slug, name: "Benchmark" }) });
const orders = `${base}/api/customers/${slug}/orders`;

/** A fresh key per scenario, so each has the whole per-key rate budget. */
async function keyHeaders(): Promise<Record<string, string>> {
  const response = await fetch(`${base}/admin/customers/${slug}/api-keys`, { method: "POST", headers: admin, body: JSON.stringify({ name: "bench" }) });
  const { key } = (await response.json()) as { key: string };
  return { Authorization: `Bearer ${key}`, "Content-Type": "application/json" };
}

const setup = await keyHeaders();
const pairs = [["mobile", "US"], ["landline", "GB"], ["toll_free", "DE"]] as const;
let created: { order_id: string } | undefined;
for (let i = 0; i < 200; i++) {
  const [numberType, countryCode] = pairs[i % pairs.length]!;
  const body = JSON.stringify({ number_type: numberType, country_code: countryCode, quantity: 1 + (i % 50), notes: `bench ${i}` });
  created = (await (await fetch(orders, { method: "POST", headers: setup, body })).json()) as { order_id: string };
}

console.log(`${requests} requests per scenario, ${concurrency} in flight, against ${base} (account ${slug}, 200 orders)`);
await run({ name: "GET /healthz", request: () => fetch(`${base}/healthz`) });
const listHeaders = await keyHeaders();
await run({ name: "GET orders (default page)", request: () => fetch(orders, { headers: listHeaders }) });
const filterHeaders = await keyHeaders();
await run({
  name: "GET orders (filters, search, sort)",
  request: () => fetch(`${orders}?status=pending&country_code=US,GB&search=bench&sort_by=quantity&limit=50`, { headers: filterHeaders }),
});
const getHeaders = await keyHeaders();
await run({ name: "GET one order", request: () => fetch(`${orders}/${created!.order_id}`, { headers: getHeaders }) });
const postHeaders = await keyHeaders();
const postBody = JSON.stringify({ number_type: "mobile", country_code: "US", quantity: 1 });
await run({ name: "POST order", request: () => fetch(orders, { method: "POST", headers: postHeaders, body: postBody }) });
