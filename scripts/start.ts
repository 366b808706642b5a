// `npm start`: apply local migrations, seed the demo account, print how to call it, then run `wrangler dev` on PORT
// (8787 when unset). A second `npm start` of the same folder while one runs, or a port another program holds, is
// refused before anything is written: seeding again would void the running one's sign-in link.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { sign } from "hono/jwt";
import { isWellFormedApiKey } from "../src/lib/api-key.ts";
import { accessClaims } from "./access-claims.ts";
import { accessKeyPair } from "./access-keys.ts";
import {
  devVar,
  type LocalSetup,
  localSetupOrExit,
  ROOT,
  type RunningInstance,
  recordRunning,
  runningInstance,
  setDevVar,
} from "./local-dev.ts";
import { portInUse } from "./ports.ts";
import type { DemoAccount } from "./seed.ts";

function fail(message: string): never {
  console.error(message);
  process.exit(1);
}

/**
 * wrangler's command line as its bin script runs it, in this Node: without npx's look-up, and in one process, so that a
 * signal passed on to it reaches wrangler itself (the bin script would die and leave wrangler running).
 */
const WRANGLER = ["--no-warnings", createRequire(import.meta.url).resolve("wrangler")];

/** The folder's local state for wrangler: where its files are, when they are not the project's own. */
function stateArgs(setup: LocalSetup): string[] {
  return setup.ownDir ? ["--persist-to", setup.state] : [];
}

/** The value of a variable in .dev.vars; when it has none, `initial()` is written there and returned. */
function ensureDevVar(setup: LocalSetup, name: string, initial: () => string): string {
  const existing = devVar(setup.devVars, name);
  if (existing) return existing;
  const value = initial();
  setDevVar(setup.devVars, name, value);
  return value;
}

interface LocalAccess {
  privateJwk: JsonWebKey & { alg: "RS256"; kid: string };
  audience: string;
  issuer: string;
}

/**
 * The local stand-in for Cloudflare Access: a key pair (its public half in .dev.vars as ACCESS_JWKS, its private half
 * kept beside the local state), the application's audience and the team's issuer. Made once; made afresh when either
 * half is missing.
 */
function localAccess(setup: LocalSetup): LocalAccess {
  const audience = ensureDevVar(setup, "ACCESS_AUD", () => "local-virtual-numbers");
  const issuer = ensureDevVar(setup, "ACCESS_TEAM_DOMAIN", () => "https://local.cloudflareaccess.com");
  if (!devVar(setup.devVars, "ACCESS_JWKS") || !existsSync(setup.accessPrivateKey)) {
    const pair = accessKeyPair();
    mkdirSync(path.dirname(setup.accessPrivateKey), { recursive: true });
    writeFileSync(setup.accessPrivateKey, JSON.stringify(pair.privateJwk), { mode: 0o600 });
    setDevVar(setup.devVars, "ACCESS_JWKS", JSON.stringify({ keys: [pair.publicJwk] }));
  }
  return { privateJwk: JSON.parse(readFileSync(setup.accessPrivateKey, "utf8")), audience, issuer };
}

/** A token as Access would issue it for this e-mail, valid for a day. */
function staffToken(access: LocalAccess, email: string): Promise<string> {
  return sign(accessClaims(access, email, 86_400), access.privateJwk);
}

function savedDemoKey(setup: LocalSetup): string | undefined {
  const key = existsSync(setup.demoKey) ? readFileSync(setup.demoKey, "utf8").trim() : "";
  return isWellFormedApiKey(key) ? key : undefined;
}

/** Applies the migrations, then seeds the demo account and the local staff admin, through wrangler's platform proxy. */
async function seed(setup: LocalSetup): Promise<DemoAccount> {
  // The same local state `wrangler dev` uses: wrangler keeps its files in a v3 folder of the state folder.
  const proxy = await getPlatformProxy<Env>({
    configPath: path.join(ROOT, "wrangler.toml"),
    persist: { path: path.join(setup.state, "v3") },
    ...(setup.ownDir ? { envFiles: [setup.devVars] } : {}),
  });
  const db = createDatabase(proxy.env.DB);
  try {
    await applyLocalMigrations(proxy.env.DB);
    const demo = await seeding.seedDemo(db, savedDemoKey(setup));
    await seeding.seedStaffAdmin(db);
    return demo;
  } finally {
    await proxy.dispose();
  }
}

/** What `npm start` prints: the demo's credentials and links, and commands to try (README shows it). */
function banner(setup: LocalSetup, demo: DemoAccount, staffAccess: string, adminToken: string): string {
  const { base } = setup;
  const { DEMO_SLUG, DEMO_OWNER_EMAIL, LOCAL_STAFF_EMAIL } = seeding;
  const compliance = demo.compliance;
  return `
virtual-numbers is starting on ${base}

  Demo account:   ${DEMO_SLUG}
  Demo API key:   ${demo.apiKey}
  Portal:         ${base}/portal/invitations/${demo.ownerInvitation}
                  (the demo owner, ${DEMO_OWNER_EMAIL}, sets a password there, then signs in; a new link each start)
  Console:        ${base}/ops/sign-in?token=${staffAccess}
                  (signs the local staff admin, ${LOCAL_STAFF_EMAIL}, in; a new link each start, valid a day)
  Admin token:    ${adminToken}   (ADMIN_TOKEN in .dev.vars)
  API reference:  ${base}/docs

  List the demo account's orders:
    curl -s -H "Authorization: Bearer ${demo.apiKey}" ${base}/api/customers/${DEMO_SLUG}/orders

  Place an order:
    curl -s -X POST -H "Authorization: Bearer ${demo.apiKey}" -H "Content-Type: application/json" \\
      -d '{"number_type":"mobile","country_code":"US","quantity":10}' ${base}/api/customers/${DEMO_SLUG}/orders

  What demo number ${compliance.phoneNumber} (${compliance.countryCode} ${compliance.numberType}) needs before it is verified:
    N=num_${compliance.id}
    curl -s -H "Authorization: Bearer ${demo.apiKey}" ${base}/v1/numbers/$N/KYC/evaluation

  The operator's queue of open orders, as the local staff admin (the header Cloudflare Access adds in production):
    curl -s -H "Cf-Access-Jwt-Assertion: ${staffAccess}" ${base}/admin/orders

  The same with the ADMIN_TOKEN (automation):
    curl -s -H "Authorization: Bearer ${adminToken}" ${base}/admin/orders
`;
}

function refuseBeside(setup: LocalSetup, running: RunningInstance): never {
  fail(
    `virtual-numbers is running already from ${setup.dir} (process ${running.pid}, on http://localhost:${running.port}).\n` +
      "Nothing was changed. Use that one, or stop it (Ctrl-C where it runs) and start again; a second, separate instance\n" +
      "needs a port and a folder of its own: PORT=8790 VN_LOCAL_DIR=.wrangler/second npm start",
  );
}

const setup = localSetupOrExit();
// Asked first, so that a start beside a running one says so rather than that its port is taken.
const running = runningInstance(setup);
if (running) refuseBeside(setup, running);
if (await portInUse(setup.port)) {
  fail(`Port ${setup.port} is in use by another program. Nothing was changed. Start on a free one: PORT=8790 npm start`);
}
// The claim itself is exclusive: of two starts that both got this far, one is refused here.
const claimedBy = recordRunning(setup);
if (claimedBy) refuseBeside(setup, claimedBy);

const adminToken = ensureDevVar(setup, "ADMIN_TOKEN", () =>
  Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("hex"),
);
// Webhook endpoints may then point at http://127.0.0.1 (npm run webhooks:listen); never set in production.
ensureDevVar(setup, "WEBHOOK_ALLOW_INSECURE_URLS", () => "true");
const access = localAccess(setup);

console.log("Applying local D1 migrations and seeding the demo account…");
// Loaded only once the start goes ahead: a refused one ends before loading wrangler and the Worker's stores.
const [{ getPlatformProxy }, { applyLocalMigrations }, { createDatabase }, seeding] = await Promise.all([
  import("wrangler"),
  import("./local-migrations.ts"),
  import("../src/db/client.ts"),
  import("./seed.ts"),
]);
const demo = await seed(setup);
const staffAccess = await staffToken(access, seeding.LOCAL_STAFF_EMAIL);
writeFileSync(setup.demoKey, `${demo.apiKey}\n`, { mode: 0o600 });
writeFileSync(setup.staffToken, `${staffAccess}\n`, { mode: 0o600 });
console.log(banner(setup, demo, staffAccess, adminToken));

const dev = spawn(
  process.execPath,
  [
    ...WRANGLER,
    "dev",
    "--port",
    String(setup.port),
    ...stateArgs(setup),
    // Another folder's variables; wrangler reads the project's own .dev.vars by itself.
    ...(setup.ownDir ? ["--env-file", setup.devVars] : []),
  ],
  { cwd: ROOT, stdio: "inherit" },
);
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => dev.kill(signal));
dev.on("exit", (code) => process.exit(code ?? 0));
