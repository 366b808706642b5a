// Runs once before the browser test files: finds (or inflates) Chromium, and starts the one Worker every file drives
// (wrangler's createTestHarness(): built from wrangler.toml, fresh D1/R2 with the migrations applied, on 127.0.0.1 and
// a random port; nothing is written to .wrangler/state). Storage is shared by the files, so each test makes its own
// accounts, staff and phone numbers, and each file sends from its own client address (test/browser/helpers.ts).
import type { TestProject } from "vitest/node";
import { createTestHarness } from "wrangler";
import { accessKeyPair } from "../../scripts/access-keys.ts";
import { TEST_ACCESS_AUD, TEST_ACCESS_TEAM_DOMAIN, TEST_ADMIN_TOKEN, TEST_PASSWORD_SCRYPT_LOG_N } from "../constants.ts";
import { type Chrome, findChrome } from "./chrome.ts";

declare module "vitest" {
  export interface ProvidedContext {
    chrome: Chrome;
    /** The Worker's origin, e.g. http://127.0.0.1:41234. */
    origin: string;
    /** The private half of the key pair whose public half the Worker trusts as ACCESS_JWKS (JSON): staff sign in with it. */
    accessPrivateJwk: string;
  }
}

export default async function setup(project: TestProject) {
  // The console's stand-in for Cloudflare Access: a key pair of this run, the Worker trusting its public half.
  const access = accessKeyPair();
  const server = createTestHarness({
    workers: [
      {
        configPath: "./wrangler.toml",
        secrets: { ADMIN_TOKEN: TEST_ADMIN_TOKEN },
        vars: {
          WEBHOOK_ALLOW_INSECURE_URLS: "true",
          ACCESS_AUD: TEST_ACCESS_AUD,
          ACCESS_TEAM_DOMAIN: TEST_ACCESS_TEAM_DOMAIN,
          ACCESS_JWKS: JSON.stringify({ keys: [access.publicJwk] }),
          PASSWORD_SCRYPT_LOG_N: TEST_PASSWORD_SCRYPT_LOG_N,
        },
      },
    ],
  });
  const [chrome, { url }] = await Promise.all([findChrome(), server.listen()]);
  await server.getWorker().applyD1Migrations("DB");
  project.provide("chrome", chrome);
  project.provide("origin", url.origin);
  project.provide("accessPrivateJwk", JSON.stringify(access.privateJwk));
  return () => server.close();
}
