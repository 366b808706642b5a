// The base of generated absolute URLs: PUBLIC_BASE_URL when set, so a client's Host header never reaches a link.

/** The base of every generated absolute URL (download_url, a problem's type, the OpenAPI servers), no trailing slash. */
export function publicOrigin(c: { req: { url: string }; env: { PUBLIC_BASE_URL?: string } }): string {
  const configured = c.env.PUBLIC_BASE_URL;
  return configured ? configured.replace(/\/+$/, "") : new URL(c.req.url).origin;
}
