// The claims of a token as Cloudflare Access issues it for an application, for a person: one definition for npm start,
// the bench and the tests, which sign them with their own key pair (scripts/access-keys.ts). No Node imports, so the
// tests' workerd can load it.

export interface AccessApplication {
  audience: string;
  issuer: string;
}

/** The claims for `email`, valid from now for `lifetimeSeconds`; `extra` adds or overrides claims. */
export function accessClaims(
  application: AccessApplication,
  email: string,
  lifetimeSeconds: number,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  const now = Math.floor(Date.now() / 1000);
  return {
    aud: [application.audience],
    iss: application.issuer,
    email,
    sub: crypto.randomUUID(),
    iat: now,
    nbf: now,
    exp: now + lifetimeSeconds,
    type: "app",
    ...extra,
  };
}
