// `npm run bench:upload-memory`: the memory a 10 MiB KYC upload costs the Worker under `wrangler dev`, read from the
// kernel's counters of the workerd process that runs it (VmRSS, and VmHWM, its peak resident set). Every measurement
// runs on a fresh `wrangler dev` with a throwaway state, seeded through the HTTP API (an account and key, an orderable
// pair, an order, one allocated number with its address submitted), and sends the same 10 MiB PDF either one request
// at a time or several at once. That workerd also runs the HTTP layer and the local D1 and R2 simulators, so the same
// bodies are sent three ways: refused unread (401, no credential), read and refused (415: a PDF named .png, parsed
// and checked, never stored) and stored (201, into the local R2); the differences are the Worker's own share.
// Prints medians and ratios of the runs, never asserts. Linux only (it reads /proc).
// Usage: npm run bench:upload-memory -- [--runs 3] [--sequential 10] [--concurrent 4] [--worker <checkout>]
//   [--state-in <folder>]  (--worker: the checkout whose Worker is measured, default this one; a worktree of an older
//   commit measures the code as it was)

import { type ChildProcess, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { freePort } from "../ports.ts";
import { startWranglerDev, waitForHealth } from "./dev-server.ts";
import { memoryOf, runtimeWorkerd } from "./process-memory.ts";
import { multipartUpload, pdfOf, UPLOAD_BOUNDARY } from "./scenarios.ts";

const { values: args } = parseArgs({
  options: {
    runs: { type: "string", default: "3" },
    sequential: { type: "string", default: "10" },
    concurrent: { type: "string", default: "4" },
    worker: { type: "string" },
    "state-in": { type: "string" },
  },
});
const runs = Number(args.runs);
const sequential = Number(args.sequential);
const concurrent = Number(args.concurrent);
/** A verification holds at most 20 documents, the warm-up's among them. */
const MAX_UPLOADS = 19;
if (!(runs >= 1 && sequential >= 1 && sequential <= MAX_UPLOADS && concurrent >= 2 && concurrent <= MAX_UPLOADS)) {
  throw new Error(`--runs ≥ 1, --sequential 1-${MAX_UPLOADS} and --concurrent 2-${MAX_UPLOADS}`);
}

const workerRoot = path.resolve(args.worker ?? path.join(import.meta.dirname, "..", ".."));
const wranglerBin = path.join(workerRoot, "node_modules", "wrangler", "bin", "wrangler.js");
const stateParent = args["state-in"] ?? (existsSync("/dev/shm") ? "/dev/shm" : os.tmpdir());
const log = (line: string) => console.log(`[upload-memory] ${line}`);

const MIB = 1024 * 1024;
/** The largest file the API takes (10,485,760 bytes). */
const FILE_BYTES = 10 * MIB;
const SLUG = "memory-bench";

interface Mode {
  name: string;
  /** The answer every request of this mode must get, or the run measured something else. */
  status: number;
  filename: string;
  authorized: boolean;
}

const MODES: Mode[] = [
  { name: "refused unread (401)", status: 401, filename: "statement.pdf", authorized: false },
  { name: "read, refused (415)", status: 415, filename: "statement.png", authorized: true },
  { name: "stored in R2 (201)", status: 201, filename: "statement.pdf", authorized: true },
];

async function request(base: string, method: string, pathname: string, token: string, body?: unknown): Promise<unknown> {
  const response = await fetch(`${base}${pathname}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${pathname}: ${response.status} ${text}`);
  return JSON.parse(text);
}

/** The account, its key and a number with a submitted address, through the API as a client would make them. */
async function seed(base: string, adminToken: string): Promise<{ key: string; numberId: string }> {
  await request(base, "POST", "/admin/customers", adminToken, { slug: SLUG, name: "Upload memory bench" });
  const { key } = (await request(base, "POST", `/admin/customers/${SLUG}/api-keys`, adminToken, { name: "bench" })) as {
    key: string;
  };
  await request(base, "PUT", "/admin/catalog/US/mobile", adminToken);
  const order = (await request(base, "POST", `/api/customers/${SLUG}/orders`, key, {
    number_type: "mobile",
    country_code: "US",
    quantity: 1,
  })) as { order_id: string };
  const allocated = (await request(base, "POST", `/admin/orders/${order.order_id}/numbers`, adminToken, {
    phone_numbers: ["+15550100001"],
  })) as { numbers: [{ number_id: string }] };
  const numberId = allocated.numbers[0].number_id;
  await request(base, "POST", `/v1/numbers/${numberId}/KYC/address`, key, {
    address_line_1: "1 Market St",
    city: "San Francisco",
    state_province: "CA",
    postal_code: "94105",
    country: "US",
    verification_type: "individual",
  });
  return { key, numberId };
}

type Phase = "one by one" | "at once";
const PHASES: Phase[] = ["one by one", "at once"];

interface Measurement {
  /** Resident set before the first 10 MiB request, after a small warm-up request of the same kind. */
  before: number;
  /** Peak resident set after each step: each request one by one, or the one batch sent at once. */
  peaks: number[];
}

/** The `wrangler dev` of the measurement under way and its state folder, both gone when this script is stopped. */
let dev: ChildProcess | undefined;
let state: string | undefined;
process.on("SIGINT", () => {
  if (dev?.pid && dev.exitCode === null) process.kill(-dev.pid, "SIGTERM");
  if (state) rmSync(state, { recursive: true, force: true });
  process.exit(130);
});

/**
 * One mode and phase on a fresh `wrangler dev`. Memory a finished request freed stays in the process (the allocator
 * and the V8 heap keep it for reuse), so a second phase on the same process would mostly show what the first left.
 */
async function measure(mode: Mode, phase: Phase, body: Buffer): Promise<Measurement> {
  state = mkdtempSync(path.join(stateParent, "virtual-numbers-upload-memory-"));
  try {
    const migrated = spawnSync(
      process.execPath,
      [wranglerBin, "d1", "migrations", "apply", "DB", "--local", "--persist-to", state],
      { cwd: workerRoot, encoding: "utf8", env: { ...process.env, CI: "true" } },
    );
    if (migrated.status !== 0) throw new Error(`migrations failed:\n${migrated.stdout}${migrated.stderr}`);
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const adminToken = crypto.randomUUID();
    dev = startWranglerDev(workerRoot, state, port, { ADMIN_TOKEN: adminToken }, "ignore");
    let stderr = "";
    dev.stderr!.on("data", (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-4000);
    });
    await waitForHealth(base, dev).catch((error: unknown) => {
      throw new Error(`${String(error)}\n${stderr}`);
    });
    const { key, numberId } = await seed(base, adminToken);
    const runtime = runtimeWorkerd(dev.pid!, state);

    const send = async (body: Buffer) => {
      const response = await fetch(`${base}/v1/numbers/${numberId}/KYC/files`, {
        method: "POST",
        headers: {
          "content-type": `multipart/form-data; boundary=${UPLOAD_BOUNDARY}`,
          ...(mode.authorized ? { authorization: `Bearer ${key}` } : {}),
        },
        body,
      });
      const text = await response.text();
      if (response.status !== mode.status) throw new Error(`${mode.name}: answered ${response.status} ${text}`);
    };
    // The code paths compiled and the first allocations made, on a small file, so "before" is a warm process.
    await send(multipartUpload(pdfOf(64 * 1024), mode.filename));
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const before = memoryOf(runtime).rss;
    const peaks: number[] = [];
    if (phase === "one by one") {
      for (let i = 0; i < sequential; i++) {
        await send(body);
        peaks.push(memoryOf(runtime).hwm);
      }
    } else {
      await Promise.all(Array.from({ length: concurrent }, () => send(body)));
      peaks.push(memoryOf(runtime).hwm);
    }
    return { before, peaks };
  } finally {
    const running = dev;
    if (running?.pid && running.exitCode === null) {
      const exited = new Promise((resolve) => running.once("exit", resolve));
      process.kill(-running.pid, "SIGTERM");
      await exited;
    }
    dev = undefined;
    rmSync(state, { recursive: true, force: true });
    state = undefined;
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

const f = (n: number) => n.toFixed(1);
const results = MODES.map((mode) => ({ mode, oneByOne: [] as Measurement[], atOnce: [] as Measurement[] }));
log(
  `Worker in ${workerRoot}; ${runs} run(s): ${sequential} × 10 MiB one by one, and ${concurrent} at once, each on a fresh process`,
);
// Modes and phases alternate within each run, so a machine that gets busier during the runs weighs on all alike.
for (let run = 1; run <= runs; run++) {
  for (const result of results) {
    const body = multipartUpload(pdfOf(FILE_BYTES), result.mode.filename);
    for (const phase of PHASES) {
      const m = await measure(result.mode, phase, body);
      (phase === "one by one" ? result.oneByOne : result.atOnce).push(m);
      log(`run ${run}, ${result.mode.name}, ${phase}: RSS before ${f(m.before)} MiB, peaks ${m.peaks.map(f).join(" ")} MiB`);
    }
  }
}

/** Median figures of a mode, in MiB; an increase is over the same process's "before". */
const rows = results.map(({ mode, oneByOne, atOnce }) => ({
  mode,
  before: median([...oneByOne, ...atOnce].map((m) => m.before)),
  peakFirst: median(oneByOne.map((m) => m.peaks[0]!)),
  peakSequential: median(oneByOne.map((m) => m.peaks.at(-1)!)),
  peakConcurrent: median(atOnce.map((m) => m.peaks[0]!)),
  oneInFlight: median(oneByOne.map((m) => m.peaks[0]! - m.before)),
  perInFlight: median(atOnce.map((m) => (m.peaks[0]! - m.before) / concurrent)),
}));
const header = [
  "10 MiB request",
  "RSS before",
  "peak, 1st upload",
  `peak after ${sequential} one by one`,
  `peak, ${concurrent} at once`,
  "+ 1 in flight",
  `+ per upload, ${concurrent} in flight`,
];
const table = rows.map((r) => [
  r.mode.name,
  ...[r.before, r.peakFirst, r.peakSequential, r.peakConcurrent, r.oneInFlight, r.perInFlight].map(f),
]);
const widths = header.map((h, i) => Math.max(h.length, ...table.map((cells) => cells[i]!.length)));
const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ");

const cpus = os.cpus();
console.log(
  `\n${cpus.length} × ${cpus[0]?.model ?? "cpu"}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, ${os.platform()} ${os.release()}, ` +
    `Node ${process.version}; MiB of the workerd that runs the Worker (VmRSS, VmHWM), median of ${runs} run(s)\n`,
);
console.log(line(header));
for (const cells of table) console.log(line(cells));
const [unread, parsed, stored] = rows as [(typeof rows)[0], (typeof rows)[0], (typeof rows)[0]];
const over = (r: typeof unread) =>
  `${f(r.perInFlight - unread.perInFlight)} MiB (${((r.perInFlight - unread.perInFlight) / 10).toFixed(1)} × the file)`;
console.log(
  `\nPer 10 MiB upload in flight, over the same body refused unread: read and parsed ${over(parsed)}; ` +
    `read, parsed and stored in the local R2 ${over(stored)}.`,
);
