// Where the local setup lives, shared by `npm start`, `npm run webhooks:listen` and the benchmarks: the port the Worker
// is served on, .dev.vars, what is kept beside the local D1 files under .wrangler/state (wiping that folder wipes the
// database and these files together, so a fresh start makes them afresh), and whether a local Worker is up.
import path from "node:path";

export const ROOT = path.resolve(import.meta.dirname, "..");
/** The port `npm start` serves the Worker on. */
export const DEV_PORT = 8787;
export const DEV_VARS_PATH = path.join(ROOT, ".dev.vars");
const STATE = path.join(ROOT, ".wrangler", "state");
/** The demo account's API key, written by `npm start`. */
export const DEMO_KEY_PATH = path.join(STATE, "demo-api-key");
/** The private half of the local stand-in for Cloudflare Access's keys (its public half is ACCESS_JWKS in .dev.vars). */
export const ACCESS_PRIVATE_KEY_PATH = path.join(STATE, "access-private-key.json");
/** The local receiver's endpoint and signing secret, written by `npm run webhooks:listen`. */
export const LISTENER_STATE_PATH = path.join(STATE, "webhooks-listen.json");

/** Whether the Worker at `base` answers its health check (false while it is starting, or when nothing listens). */
export async function isHealthy(base: string): Promise<boolean> {
  return fetch(`${base}/healthz`).then(
    async (r) => {
      await r.arrayBuffer();
      return r.ok;
    },
    () => false,
  );
}
