// Values shared by the test configuration (Node) and the tests (workerd).
export const TEST_ADMIN_TOKEN = "test-admin-token-0123456789";

/** Requests per minute per API key in tests (production: wrangler.toml); small so the 429 test stays quick. */
export const TEST_RATE_LIMIT = 100;

/** Who the audit log says acts when a test calls a store itself: the operator's automation. */
export const TEST_AUDIT = { actor: { type: "token" }, requestId: "test" } as const;

/** The Cloudflare Access application the tests' Worker trusts (vitest.config.ts). */
export const TEST_ACCESS_TEAM_DOMAIN = "https://test-team.cloudflareaccess.com";
export const TEST_ACCESS_AUD = "test-access-audience-0123456789abcdef";

/**
 * The cost of the tests' password hashes, as log2 of scrypt's N (PASSWORD_SCRYPT_LOG_N): 2^10, a sixteenth of
 * production's 2^14, so the hundreds of sign-ins of the portal's tests stay quick (test/portal-sessions.test.ts pins
 * production's parameters and checks a hash of each kind against the other).
 */
export const TEST_PASSWORD_SCRYPT_LOG_N = "10";
