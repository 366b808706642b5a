// `npm start`: apply local migrations, seed the demo account, print how to call it, then run `wrangler dev`.
import { spawn, spawnSync } from "node:child_process";
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { getPlatformProxy } from "wrangler";
import { createDatabase } from "../src/db/client.ts";
import { isWellFormedApiKey } from "../src/lib/api-key.ts";
import { DEMO_SLUG, seedDemo } from "./seed.ts";

const PORT = 8787;
const root = path.resolve(import.meta.dirname, "..");
const devVarsPath = path.join(root, ".dev.vars");
// Kept beside the local D1 files: wiping .wrangler/state wipes both, and a new demo account and key are made.
const demoKeyPath = path.join(root, ".wrangler", "state", "demo-api-key");

/** Runs a wrangler command quietly; its output is shown only when it fails. */
function wrangler(args: string[]): void {
  // CI=true makes `d1 migrations apply` skip its confirmation prompt.
  const result = spawnSync("npx", ["wrangler", ...args], { cwd: root, encoding: "utf8", env: { ...process.env, CI: "true" } });
  if (result.status !== 0) {
    console.error(`wrangler ${args.join(" ")} failed:\n${result.stdout}${result.stderr}`);
    process.exit(result.status ?? 1);
  }
}

function ensureAdminToken(): string {
  const existing = existsSync(devVarsPath) ? readFileSync(devVarsPath, "utf8") : "";
  const match = existing.match(/^ADMIN_TOKEN\s*=\s*"?([^"\n]+)"?\s*$/m);
  if (match?.[1]) return match[1];
  const token = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("hex");
  appendFileSync(devVarsPath, `${existing && !existing.endsWith("\n") ? "\n" : ""}ADMIN_TOKEN="${token}"\n`);
  return token;
}

function savedDemoKey(): string | undefined {
  const key = existsSync(demoKeyPath) ? readFileSync(demoKeyPath, "utf8").trim() : "";
  return isWellFormedApiKey(key) ? key : undefined;
}

const adminToken = ensureAdminToken();

console.log("Applying local D1 migrations and seeding the demo account…");
wrangler(["d1", "migrations", "apply", "DB", "--local"]);
// The same local state `wrangler dev` uses (.wrangler/state), reached through wrangler's platform proxy.
const proxy = await getPlatformProxy<Env>({ configPath: path.join(root, "wrangler.toml") });
const demo = await seedDemo(createDatabase(proxy.env.DB), savedDemoKey()).finally(() => proxy.dispose());
mkdirSync(path.dirname(demoKeyPath), { recursive: true });
writeFileSync(demoKeyPath, `${demo.apiKey}\n`, { mode: 0o600 });
const demoKey = demo.apiKey;
const [demoNumber] = demo.numbers;
if (!demoNumber) throw new Error("the demo account has no numbers: remove .wrangler/state to seed it afresh");

const base = `http://localhost:${PORT}`;
console.log(`
virtual-numbers is starting on ${base}

  Demo account:   ${DEMO_SLUG}
  Demo API key:   ${demoKey}
  Admin token:    ${adminToken}   (ADMIN_TOKEN in .dev.vars)
  API reference:  ${base}/docs

  List the demo account's orders:
    curl -s -H "Authorization: Bearer ${demoKey}" ${base}/api/customers/${DEMO_SLUG}/orders

  Place an order:
    curl -s -X POST -H "Authorization: Bearer ${demoKey}" -H "Content-Type: application/json" \\
      -d '{"number_type":"mobile","country_code":"US","quantity":10}' ${base}/api/customers/${DEMO_SLUG}/orders

  Read the verification of demo number ${demoNumber.phoneNumber} (404 until its address is submitted):
    N=num_${demoNumber.id}
    curl -s -H "Authorization: Bearer ${demoKey}" ${base}/v1/numbers/$N/KYC
`);

const dev = spawn("npx", ["wrangler", "dev", "--port", String(PORT)], { cwd: root, stdio: "inherit" });
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => dev.kill(signal));
dev.on("exit", (code) => process.exit(code ?? 0));
