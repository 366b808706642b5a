// `npm start`: apply local migrations, seed the demo account, print how to call it, then run `wrangler dev`.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { sign } from "hono/jwt";
import { getPlatformProxy } from "wrangler";
import { createDatabase } from "../src/db/client.ts";
import { isWellFormedApiKey } from "../src/lib/api-key.ts";
import { accessClaims } from "./access-claims.ts";
import { accessKeyPair } from "./access-keys.ts";
import { ACCESS_PRIVATE_KEY_PATH, DEMO_KEY_PATH, DEV_PORT, DEV_VARS_PATH, ROOT } from "./local-dev.ts";
import { DEMO_OWNER_EMAIL, DEMO_SLUG, LOCAL_STAFF_EMAIL, seedDemo, seedStaffAdmin } from "./seed.ts";

/** Runs a wrangler command quietly; its output is shown only when it fails. */
function wrangler(args: string[]): void {
  // CI=true makes `d1 migrations apply` skip its confirmation prompt.
  const result = spawnSync("npx", ["wrangler", ...args], { cwd: ROOT, encoding: "utf8", env: { ...process.env, CI: "true" } });
  if (result.status !== 0) {
    console.error(`wrangler ${args.join(" ")} failed:\n${result.stdout}${result.stderr}`);
    process.exit(result.status ?? 1);
  }
}

/** The value of a variable in .dev.vars, or undefined. */
function devVar(name: string): string | undefined {
  const existing = existsSync(DEV_VARS_PATH) ? readFileSync(DEV_VARS_PATH, "utf8") : "";
  return existing.match(new RegExp(`^${name}\\s*=\\s*'?"?([^"'\\n]+)"?'?\\s*$`, "m"))?.[1];
}

/** Sets a variable in .dev.vars, replacing its line when it has one. Values are single-quoted (a JWKS holds quotes). */
function setDevVar(name: string, value: string): void {
  const existing = existsSync(DEV_VARS_PATH) ? readFileSync(DEV_VARS_PATH, "utf8") : "";
  const line = `${name}='${value}'`;
  const pattern = new RegExp(`^${name}\\s*=.*$`, "m");
  const next = pattern.test(existing)
    ? existing.replace(pattern, line)
    : `${existing}${existing && !existing.endsWith("\n") ? "\n" : ""}${line}\n`;
  writeFileSync(DEV_VARS_PATH, next);
}

/** The value of a variable in .dev.vars; when it has none, `initial()` is written there and returned. */
function ensureDevVar(name: string, initial: () => string): string {
  const existing = devVar(name);
  if (existing) return existing;
  const value = initial();
  setDevVar(name, value);
  return value;
}

/**
 * The local stand-in for Cloudflare Access: a key pair (its public half in .dev.vars as ACCESS_JWKS, its private half
 * kept beside the local state), the application's audience and the team's issuer. Made once; made afresh when either
 * half is missing.
 */
function localAccess(): { privateJwk: JsonWebKey & { alg: "RS256"; kid: string }; audience: string; issuer: string } {
  const audience = ensureDevVar("ACCESS_AUD", () => "local-virtual-numbers");
  const issuer = ensureDevVar("ACCESS_TEAM_DOMAIN", () => "https://local.cloudflareaccess.com");
  if (!devVar("ACCESS_JWKS") || !existsSync(ACCESS_PRIVATE_KEY_PATH)) {
    const pair = accessKeyPair();
    mkdirSync(path.dirname(ACCESS_PRIVATE_KEY_PATH), { recursive: true });
    writeFileSync(ACCESS_PRIVATE_KEY_PATH, JSON.stringify(pair.privateJwk), { mode: 0o600 });
    setDevVar("ACCESS_JWKS", JSON.stringify({ keys: [pair.publicJwk] }));
  }
  return { privateJwk: JSON.parse(readFileSync(ACCESS_PRIVATE_KEY_PATH, "utf8")), audience, issuer };
}

/** A token as Access would issue it for this e-mail, valid for a day. */
function staffToken(access: ReturnType<typeof localAccess>, email: string): Promise<string> {
  return sign(accessClaims(access, email, 86_400), access.privateJwk);
}

function savedDemoKey(): string | undefined {
  const key = existsSync(DEMO_KEY_PATH) ? readFileSync(DEMO_KEY_PATH, "utf8").trim() : "";
  return isWellFormedApiKey(key) ? key : undefined;
}

const adminToken = ensureDevVar("ADMIN_TOKEN", () => Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("hex"));
// Webhook endpoints may then point at http://127.0.0.1 (npm run webhooks:listen); never set in production.
ensureDevVar("WEBHOOK_ALLOW_INSECURE_URLS", () => "true");
const access = localAccess();

console.log("Applying local D1 migrations and seeding the demo account…");
wrangler(["d1", "migrations", "apply", "DB", "--local"]);
// The same local state `wrangler dev` uses (.wrangler/state), reached through wrangler's platform proxy.
const proxy = await getPlatformProxy<Env>({ configPath: path.join(ROOT, "wrangler.toml") });
const db = createDatabase(proxy.env.DB);
const demo = await seedDemo(db, savedDemoKey())
  .then(async (seeded) => {
    await seedStaffAdmin(db);
    return seeded;
  })
  .finally(() => proxy.dispose());
const staffAccess = await staffToken(access, LOCAL_STAFF_EMAIL);
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
  Console:        ${base}/ops/sign-in?token=${staffAccess}
                  (signs the local staff admin, ${LOCAL_STAFF_EMAIL}, in; a new link each start, valid a day)
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

  The operator's queue of open orders, as the local staff admin (the header Cloudflare Access adds in production):
    curl -s -H "Cf-Access-Jwt-Assertion: ${staffAccess}" ${base}/admin/orders

  The same with the ADMIN_TOKEN (automation):
    curl -s -H "Authorization: Bearer ${adminToken}" ${base}/admin/orders
`);

const dev = spawn("npx", ["wrangler", "dev", "--port", String(DEV_PORT)], { cwd: ROOT, stdio: "inherit" });
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => dev.kill(signal));
dev.on("exit", (code) => process.exit(code ?? 0));
