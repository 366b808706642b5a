// `npm start`: apply local migrations, seed the demo account, print how to call it, then run `wrangler dev`.
import { spawn, spawnSync } from "node:child_process";
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { getPlatformProxy } from "wrangler";
import { createDatabase } from "../src/db/client.ts";
import { isWellFormedApiKey } from "../src/lib/api-key.ts";
import { DEMO_KEY_PATH, DEV_PORT, DEV_VARS_PATH, ROOT } from "./local-dev.ts";
import { DEMO_OWNER_EMAIL, DEMO_SLUG, seedDemo } from "./seed.ts";

/** Runs a wrangler command quietly; its output is shown only when it fails. */
function wrangler(args: string[]): void {
  // CI=true makes `d1 migrations apply` skip its confirmation prompt.
  const result = spawnSync("npx", ["wrangler", ...args], { cwd: ROOT, encoding: "utf8", env: { ...process.env, CI: "true" } });
  if (result.status !== 0) {
    console.error(`wrangler ${args.join(" ")} failed:\n${result.stdout}${result.stderr}`);
    process.exit(result.status ?? 1);
  }
}

/** The value of a variable in .dev.vars; when it has none, `initial()` is written there and returned. */
function ensureDevVar(name: string, initial: () => string): string {
  const existing = existsSync(DEV_VARS_PATH) ? readFileSync(DEV_VARS_PATH, "utf8") : "";
  const match = existing.match(new RegExp(`^${name}\\s*=\\s*"?([^"\\n]+)"?\\s*$`, "m"));
  if (match?.[1]) return match[1];
  const value = initial();
  appendFileSync(DEV_VARS_PATH, `${existing && !existing.endsWith("\n") ? "\n" : ""}${name}="${value}"\n`);
  return value;
}

function savedDemoKey(): string | undefined {
  const key = existsSync(DEMO_KEY_PATH) ? readFileSync(DEMO_KEY_PATH, "utf8").trim() : "";
  return isWellFormedApiKey(key) ? key : undefined;
}

const adminToken = ensureDevVar("ADMIN_TOKEN", () => Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("hex"));
// Webhook endpoints may then point at http://127.0.0.1 (npm run webhooks:listen); never set in production.
ensureDevVar("WEBHOOK_ALLOW_INSECURE_URLS", () => "true");

console.log("Applying local D1 migrations and seeding the demo account…");
wrangler(["d1", "migrations", "apply", "DB", "--local"]);
// The same local state `wrangler dev` uses (.wrangler/state), reached through wrangler's platform proxy.
const proxy = await getPlatformProxy<Env>({ configPath: path.join(ROOT, "wrangler.toml") });
const demo = await seedDemo(createDatabase(proxy.env.DB), savedDemoKey()).finally(() => proxy.dispose());
mkdirSync(path.dirname(DEMO_KEY_PATH), { recursive: true });
writeFileSync(DEMO_KEY_PATH, `${demo.apiKey}\n`, { mode: 0o600 });
const demoKey = demo.apiKey;
const [demoNumber] = demo.numbers;
if (!demoNumber) throw new Error("the demo account has no numbers: remove .wrangler/state to seed it afresh");

const base = `http://localhost:${DEV_PORT}`;
console.log(`
virtual-numbers is starting on ${base}

  Demo account:   ${DEMO_SLUG}
  Demo API key:   ${demoKey}
  Portal:         ${base}/portal/invitations/${demo.ownerInvitation}
                  (the demo owner, ${DEMO_OWNER_EMAIL}, sets a password there, then signs in; a new link each start)
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

const dev = spawn("npx", ["wrangler", "dev", "--port", String(DEV_PORT)], { cwd: ROOT, stdio: "inherit" });
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => dev.kill(signal));
dev.on("exit", (code) => process.exit(code ?? 0));
