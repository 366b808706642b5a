// Bindings that exist only in tests (see vitest.config.ts).
declare namespace Cloudflare {
  interface Env {
    TEST_MIGRATIONS: import("cloudflare:test").D1Migration[];
    /** The private half of the key pair whose public half is ACCESS_JWKS: tests sign Access tokens with it. */
    TEST_ACCESS_PRIVATE_JWK: string;
    /** Empty databases of their own for the tests that apply the migrations in steps (test/list-derived-data.test.ts). */
    DERIVED_DATA_MIGRATION_DB: D1Database;
    /** … and test/webhook-endpoints.test.ts. */
    EVENT_TYPES_MIGRATION_DB: D1Database;
    /** … and test/number-life-derived-data.test.ts. */
    NUMBER_LIFE_MIGRATION_DB: D1Database;
  }
}
