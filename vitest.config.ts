// Tests run inside workerd (@cloudflare/vitest-plugin) against real local D1 and R2, configured from wrangler.toml.
import path from "node:path";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";
import { TEST_ADMIN_TOKEN, TEST_RATE_LIMIT } from "./test/constants.ts";

// wrangler.toml declares ADMIN_TOKEN a required secret; wrangler reads secrets from the environment when there is no
// .dev.vars, and the binding below sets the same value whatever a .dev.vars says.
process.env.ADMIN_TOKEN = TEST_ADMIN_TOKEN;

export default defineConfig(async () => {
  const migrations = await readD1Migrations(path.join(import.meta.dirname, "migrations"));
  return {
    plugins: [
      cloudflareTest({
        wrangler: { configPath: "./wrangler.toml" },
        miniflare: {
          // vitest's own runner imports node:* modules; the Worker itself does not need the flag.
          compatibilityFlags: ["nodejs_compat"],
          // Migrations reach the setup file as a binding; the admin token stands in for the Worker secret; webhook URL rules
          // are the production ones whatever a developer's .dev.vars says (tests that need http:// set the variable).
          bindings: { TEST_MIGRATIONS: migrations, ADMIN_TOKEN: TEST_ADMIN_TOKEN, WEBHOOK_ALLOW_INSECURE_URLS: "" },
          // DB as wrangler.toml declares it, and a second, empty database for the migration test.
          d1Databases: { DB: "virtual-numbers", MIGRATION_TEST_DB: "migration-test" },
          ratelimits: { API_RATE_LIMITER: { namespace_id: "1001", simple: { limit: TEST_RATE_LIMIT, period: 60 } } },
        },
      }),
    ],
    test: {
      setupFiles: ["./test/apply-migrations.ts", "./test/outbound-fetch.ts"],
      // The Worker logs one JSON line per request; show them only for failing tests.
      silent: "passed-only" as const,
    },
  };
});
