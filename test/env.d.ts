// Bindings that exist only in tests (see vitest.config.ts).
declare namespace Cloudflare {
  interface Env {
    TEST_MIGRATIONS: import("cloudflare:test").D1Migration[];
    /** The private half of the key pair whose public half is ACCESS_JWKS: tests sign Access tokens with it. */
    TEST_ACCESS_PRIVATE_JWK: string;
    /** An empty database of its own, for tests that apply the migrations in steps. */
    MIGRATION_TEST_DB: D1Database;
  }
}
