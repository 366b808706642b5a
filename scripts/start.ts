// `npm start`: apply local migrations, seed the demo account, print how to call it, then run `wrangler dev`.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync, appendFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { generateApiKey, isWellFormedApiKey } from "../src/lib/api-key.ts";
import { DEMO_NUMBERS, DEMO_SLUG, seedSql } from "./seed.ts";

const PORT = 8787;
const root = path.resolve(import.meta.dirname, "..");
const devVarsPath = path.join(root, ".dev.vars");
// Kept beside the local D1 files: wiping .wrangler/state wipes both, and a new demo key is minted.
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

function ensureDemoKey(): string {
  if (existsSync(demoKeyPath)) {
    const key = readFileSync(demoKeyPath, "utf8").trim();
    if (isWellFormedApiKey(key)) return key;
  }
  const key = generateApiKey();
  mkdirSync(path.dirname(demoKeyPath), { recursive: true });
  writeFileSync(demoKeyPath, `${key}\n`, { mode: 0o600 });
  return key;
}

const adminToken = ensureAdminToken();
const demoKey = ensureDemoKey();

console.log("Applying local D1 migrations and seeding the demo account…");
wrangler(["d1", "migrations", "apply", "DB", "--local"]);
const seedFile = path.join(tmpdir(), `virtual-numbers-seed-${process.pid}.sql`);
writeFileSync(seedFile, await seedSql(demoKey));
try {
  wrangler(["d1", "execute", "DB", "--local", `--file=${seedFile}`]);
} finally {
  rmSync(seedFile, { force: true });
}

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

  Read the verification of demo number ${DEMO_NUMBERS[0]!.phoneNumber} (404 until its address is submitted):
    curl -s -H "Authorization: Bearer ${demoKey}" ${base}/v1/numbers/num_${DEMO_NUMBERS[0]!.id}/KYC
`);

const dev = spawn("npx", ["wrangler", "dev", "--port", String(PORT)], { cwd: root, stdio: "inherit" });
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => dev.kill(signal));
dev.on("exit", (code) => process.exit(code ?? 0));
