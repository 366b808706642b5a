// Security headers, from hono's secureHeaders: nosniff, no-referrer and the rest of its defaults on every response;
// no-store on whatever the authenticated audiences answer; a nonce-based Content-Security-Policy on HTML pages.
import type { MiddlewareHandler } from "hono";
import { NONCE, secureHeaders } from "hono/secure-headers";

/**
 * Every response: X-Content-Type-Options: nosniff, Referrer-Policy: no-referrer, and hono's other defaults (HSTS,
 * same-origin resource and opener policies). Nothing the API answers is meant to be framed, so DENY everywhere. A header
 * an inner middleware set is kept (the portal's pages say Referrer-Policy: same-origin).
 */
export const securityHeaders = secureHeaders({ xFrameOptions: "DENY", overwrite: false });

/**
 * HTML pages: scripts run only with this answer's nonce (secureHeaders mints it, and the page reads it as
 * `secureHeadersNonce`); everything else comes from this origin. Styles may be inline: the reference's components set
 * style attributes, which no nonce can cover.
 */
export const htmlPageHeaders = secureHeaders({
  xFrameOptions: "DENY",
  contentSecurityPolicy: {
    defaultSrc: ["'self'"],
    scriptSrc: [NONCE],
    styleSrc: ["'self'", "'unsafe-inline'"],
    imgSrc: ["'self'", "data:"],
    fontSrc: ["'self'", "data:"],
    connectSrc: ["'self'"],
    objectSrc: ["'none'"],
    baseUri: ["'none'"],
    formAction: ["'self'"],
    frameAncestors: ["'none'"],
  },
});

/**
 * Answers of the authenticated audiences carry account data and secrets (a new key's plaintext): no cache may keep
 * them, errors included. A route's own policy stays when it already says no-store (the download's private, no-store).
 */
export const noStore: MiddlewareHandler = async (c, next) => {
  await next();
  const policy = c.res.headers.get("Cache-Control") ?? "";
  if (!/\bno-store\b/i.test(policy)) c.res.headers.set("Cache-Control", "no-store");
};

/**
 * The portal's and the console's pages: scripts only with the answer's nonce, styles only from this origin (the
 * portal's own file), forms posting only here, and `Referrer-Policy: same-origin`: under no-referrer a browser sends
 * `Origin: null` on a page's own form posts, which the CSRF check refuses. A header an answer sets itself is kept (the
 * console's document bytes: `Content-Security-Policy: sandbox`); no page sets these.
 */
export const portalPageHeaders = secureHeaders({
  overwrite: false,
  xFrameOptions: "DENY",
  referrerPolicy: "same-origin",
  contentSecurityPolicy: {
    defaultSrc: ["'self'"],
    scriptSrc: [NONCE],
    styleSrc: ["'self'"],
    imgSrc: ["'self'"],
    connectSrc: ["'self'"],
    objectSrc: ["'none'"],
    baseUri: ["'none'"],
    formAction: ["'self'"],
    frameAncestors: ["'none'"],
  },
});
