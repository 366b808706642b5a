// Three test projects. "workers": the Worker inside workerd (@cloudflare/vitest-plugin) against real local D1 and R2,
// configured from wrangler.toml. "browser": the portal and the console in a real Chromium (playwright-core), the Worker
// served by wrangler's createTestHarness() in this Node process (test/browser/). "node": the docs and `npm start`
// (test/node/): the docs' shell examples run against an `npm start` of the test's own.
import { statfsSync } from "node:fs";
import { availableParallelism } from "node:os";
import path from "node:path";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";
import { BaseSequencer, type TestSpecification } from "vitest/node";
import { accessKeyPair } from "./scripts/access-keys.ts";
import {
  TEST_ACCESS_AUD,
  TEST_ACCESS_TEAM_DOMAIN,
  TEST_ADMIN_TOKEN,
  TEST_PASSWORD_SCRYPT_LOG_N,
  TEST_RATE_LIMIT,
} from "./test/constants.ts";

// wrangler.toml declares ADMIN_TOKEN a required secret; wrangler reads secrets from the environment when there is no
// .dev.vars, and the binding below sets the same value whatever a .dev.vars says.
process.env.ADMIN_TOKEN = TEST_ADMIN_TOKEN;

// Miniflare keeps the tests' D1, R2, queues and rate limiters in os.tmpdir(), and every write there ends in an fsync that
// stalls its workerd (a rate limiter's count is a write): in memory, where the machine has room for it, the workers
// files take about a third less time on a busy machine. The storage is thrown away after the run either way.
const MEMORY_TMP = "/dev/shm";
if (freeBytes(MEMORY_TMP) > 2 ** 30) process.env.TMPDIR = MEMORY_TMP;

function freeBytes(folder: string): number {
  try {
    const { bavail, bsize } = statfsSync(folder);
    return bavail * bsize;
  } catch {
    return 0;
  }
}

/** The property, model and fault tests: the longest files, though not the largest. */
const LONGEST = /\/(properties-|model-|faults)[^/]*\.test\.ts$/;

/**
 * First of all in its project: it lists every object in its workerd's bucket after each of its 1,000 requests (test/
 * write-counter.ts), 1.5 ms with the bucket empty but 30 ms with the 1,500 documents earlier files leave in it.
 */
const FIRST = /\/properties-operations\.test\.ts$/;

/**
 * The order of the projects within a group. vitest's own is by name, which ran the node project after the browser files:
 * its `npm start` (about 10 s) then kept one CPU busy alone at the end. First, it runs beside the browser files.
 */
const PROJECT_ORDER = ["workers", "node", "browser"];

/**
 * vitest runs the files it has timings for longest first, and the others largest first. On a fresh checkout (CI: no
 * timings in node_modules/.vite) the longest files would then start last and keep one CPU busy alone at the end; they
 * go first within their project instead.
 */
class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const timed = files.every((file) => this.ctx.cache.getTestSpecificationResult(file));
    const rank = (file: TestSpecification) => [
      file.project.config.sequence.groupOrder,
      PROJECT_ORDER.indexOf(file.project.name),
      FIRST.test(file.moduleId) ? 0 : 1,
      timed || LONGEST.test(file.moduleId) ? 0 : 1,
    ];
    // Array.prototype.sort is stable: within a rank, the base order.
    return sorted.sort((a, b) => {
      const [rankA, rankB] = [rank(a), rank(b)];
      return rankA.map((value, index) => value - (rankB[index] ?? 0)).find((difference) => difference !== 0) ?? 0;
    });
  }
}

export default defineConfig(async () => {
  const migrations = await readD1Migrations(path.join(import.meta.dirname, "migrations"));
  // Tests mint Cloudflare Access tokens with a key pair of their own: the Worker trusts its public key (ACCESS_JWKS),
  // the tests sign with its private key (TEST_ACCESS_PRIVATE_JWK). Nothing reaches Cloudflare.
  const access = accessKeyPair();
  return {
    test: {
      projects: [
        {
          // The plugin only in this project's plugins: it makes its project a workerd one (webworker target, no node
          // resolve condition), which the browser project must not be.
          plugins: [
            cloudflareTest({
              wrangler: { configPath: "./wrangler.toml" },
              miniflare: {
                // vitest's own runner imports node:* modules; the Worker itself does not need the flag.
                compatibilityFlags: ["nodejs_compat"],
                // Migrations reach the setup file as a binding; the admin token stands in for the Worker secret; webhook URL
                // rules are the production ones whatever a developer's .dev.vars says (tests that need http:// set the variable).
                bindings: {
                  TEST_MIGRATIONS: migrations,
                  ADMIN_TOKEN: TEST_ADMIN_TOKEN,
                  WEBHOOK_ALLOW_INSECURE_URLS: "",
                  ACCESS_TEAM_DOMAIN: TEST_ACCESS_TEAM_DOMAIN,
                  ACCESS_AUD: TEST_ACCESS_AUD,
                  ACCESS_JWKS: JSON.stringify({ keys: [access.publicJwk] }),
                  TEST_ACCESS_PRIVATE_JWK: JSON.stringify(access.privateJwk),
                  // Password hashes at a sixteenth of production's cost (test/constants.ts).
                  PASSWORD_SCRYPT_LOG_N: TEST_PASSWORD_SCRYPT_LOG_N,
                },
                // DB as wrangler.toml declares it, and an empty database for each test of a migration.
                d1Databases: {
                  DB: "virtual-numbers",
                  DERIVED_DATA_MIGRATION_DB: "derived-data-migration",
                  EVENT_TYPES_MIGRATION_DB: "event-types-migration",
                  NUMBER_LIFE_MIGRATION_DB: "number-life-migration",
                },
                ratelimits: { API_RATE_LIMITER: { namespace_id: "1001", simple: { limit: TEST_RATE_LIMIT, period: 60 } } },
              },
            }),
          ],
          test: {
            name: "workers",
            // One workerd (Miniflare, its D1, R2, queues and the loaded modules) per CPU for all the files it runs, one
            // after another, instead of one per file: starting one and loading the Worker into it cost each file 2 s
            // (103 s against 55 s here). Storage is shared by the files of a workerd, so a test makes what it reads:
            // its own accounts, staff, phone numbers and number types (test/helpers.ts), a client address of its own
            // (test/fresh-address.ts), an empty database of its own for a migration; what a file needs of the shared
            // catalog it sets itself (the orders' model takes out the pairs it needs unorderable), and the write
            // counter's triggers go when their file ends.
            isolate: false,
            include: ["test/**/*.test.ts"],
            exclude: ["test/browser/**", "test/node/**"],
            setupFiles: [
              "./test/apply-migrations.ts",
              "./test/outbound-fetch.ts",
              "./test/fresh-address.ts",
              "./test/logs-on-failure.ts",
            ],
            sequence: { groupOrder: 1 },
            // vitest's default of 5 s is too close on a busy 2-CPU machine (CI here runs about a third slower than a
            // quiet run); a test that needs longer still says so itself.
            testTimeout: 15_000,
          },
        },
        {
          test: {
            name: "browser",
            // One Node process per CPU for all its files, one after another, instead of one per file: its start and the
            // files' imports (playwright-core, hono's client) cost each file about a second (the browser and node
            // projects took 52 s against 59 s here, on a busy machine). The files share nothing but the modules they
            // import; each starts and closes its own Chromium.
            isolate: false,
            include: ["test/browser/**/*.test.ts"],
            environment: "node",
            // After the workers project: the two would fight over the CPUs. Both orders are explicit and non-zero: vitest
            // runs a project with groupOrder 0 in a group of its own, last.
            sequence: { groupOrder: 2 },
            // Finds (or inflates) Chromium and starts the one Worker every file drives, before any file (a Worker per
            // file cost each file 3 s of start-up: wrangler's import, the harness, the migrations).
            globalSetup: ["./test/browser/global-setup.ts"],
            // Two files at a time (one per CPU), each with its own Chromium.
            testTimeout: 30_000,
            hookTimeout: 60_000,
          },
        },
        {
          test: {
            name: "node",
            include: ["test/node/**/*.test.ts"],
            environment: "node",
            // Beside the browser project (before its files: PROJECT_ORDER), after the workers project: its one `npm start`
            // takes a CPU while it starts.
            sequence: { groupOrder: 2 },
            testTimeout: 30_000,
            // npm start: the migrations, the seed, wrangler dev (about 10 s here, more on a busy machine).
            hookTimeout: 120_000,
          },
        },
      ],
      // One test file per CPU at a time. vitest's default leaves one CPU to itself, which on a 2-CPU machine runs the
      // files one by one: each file's workerd then waits on the runner half the time (124 s against 71 s here).
      maxWorkers: availableParallelism(),
      sequence: { sequencer: LongestFirst },
      // A test's console output only when it fails.
      silent: "passed-only" as const,
    },
  };
});
