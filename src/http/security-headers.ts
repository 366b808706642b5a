// Security headers on every response, no-store on authenticated ones, and a nonce-based CSP on HTML pages.
import type { MiddlewareHandler } from "hono";
import { NONCE, secureHeaders } from "hono/secure-headers";

/**
 * What every answer of the API carries, each value told to secureHeaders here so that the API description declares the
 * same (src/http/openapi.ts): nosniff, no-referrer, no framing (nothing the API answers is meant to be framed), HSTS,
 * same-origin resource and opener policies, and hono's other defaults.
 */
export const EVERY_ANSWER_HEADERS = {
  "Cross-Origin-Opener-Policy": "same-origin",
  "Cross-Origin-Resource-Policy": "same-origin",
  "Origin-Agent-Cluster": "?1",
  "Referrer-Policy": "no-referrer",
  "Strict-Transport-Security": "max-age=15552000; includeSubDomains",
  "X-Content-Type-Options": "nosniff",
  "X-DNS-Prefetch-Control": "off",
  "X-Download-Options": "noopen",
  "X-Frame-Options": "DENY",
  "X-Permitted-Cross-Domain-Policies": "none",
  "X-XSS-Protection": "0",
} as const;

/** Every response: EVERY_ANSWER_HEADERS. A header an inner middleware set is kept (the portal's Referrer-Policy). */
export const securityHeaders = secureHeaders({
  crossOriginOpenerPolicy: EVERY_ANSWER_HEADERS["Cross-Origin-Opener-Policy"],
  crossOriginResourcePolicy: EVERY_ANSWER_HEADERS["Cross-Origin-Resource-Policy"],
  originAgentCluster: EVERY_ANSWER_HEADERS["Origin-Agent-Cluster"],
  referrerPolicy: EVERY_ANSWER_HEADERS["Referrer-Policy"],
  strictTransportSecurity: EVERY_ANSWER_HEADERS["Strict-Transport-Security"],
  xContentTypeOptions: EVERY_ANSWER_HEADERS["X-Content-Type-Options"],
  xDnsPrefetchControl: EVERY_ANSWER_HEADERS["X-DNS-Prefetch-Control"],
  xDownloadOptions: EVERY_ANSWER_HEADERS["X-Download-Options"],
  xFrameOptions: EVERY_ANSWER_HEADERS["X-Frame-Options"],
  xPermittedCrossDomainPolicies: EVERY_ANSWER_HEADERS["X-Permitted-Cross-Domain-Policies"],
  xXssProtection: EVERY_ANSWER_HEADERS["X-XSS-Protection"],
  overwrite: false,
});

/** What noStore guarantees, as the API description declares it: no-store among the Cache-Control directives. */
export const NO_STORE_PATTERN = /(?:^|[\s,])no-store(?:$|[\s,])/;

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
  if (!NO_STORE_PATTERN.test(policy)) c.res.headers.set("Cache-Control", "no-store");
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
