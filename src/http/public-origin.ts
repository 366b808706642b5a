// Where the absolute URLs the API generates point: the PUBLIC_BASE_URL variable when it is set, so a client's Host
// header never makes its way into a link; else the request's own origin (local development, tests).

/** The base of every generated absolute URL (download_url, a problem's type, the OpenAPI servers), no trailing slash. */
export function publicOrigin(c: { req: { url: string }; env: { PUBLIC_BASE_URL?: string } }): string {
  const configured = c.env.PUBLIC_BASE_URL;
  return configured ? configured.replace(/\/+$/, "") : new URL(c.req.url).origin;
}
