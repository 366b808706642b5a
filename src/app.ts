// The Worker's app: the API, the customer portal at /portal and the operator console at /ops.
import type { MiddlewareHandler } from "hono";
import { accepts } from "hono/accepts";
import { type AppRouter, type AppType, buildApp } from "./api.ts";
import { accountPages } from "./console/accounts-pages.tsx";
import { consoleAudience } from "./console/audience.ts";
import { auditPages } from "./console/audit-pages.tsx";
import { catalogPages } from "./console/catalog-pages.tsx";
import { consoleHome } from "./console/home-page.tsx";
import { anyNumberPages } from "./console/number-page.tsx";
import { numbersPages } from "./console/numbers-pages.tsx";
import { queuePages } from "./console/queue-pages.tsx";
import { reviewPages } from "./console/review-pages.tsx";
import { consoleSignIn } from "./console/sign-in.tsx";
import { staffPages } from "./console/staff-pages.tsx";
import { stockPages } from "./console/stock-pages.tsx";
import { verificationReviewPages } from "./console/verification-review-pages.tsx";
import type { AppEnv } from "./env.ts";
import { handleError } from "./http/problem.ts";
import { noStore, portalPageHeaders } from "./http/security-headers.ts";
import { activityPages } from "./portal/activity-pages.tsx";
import { apiKeyPages } from "./portal/api-key-pages.tsx";
import { portalAudience } from "./portal/audience.ts";
import { publicPortalPages, signOut } from "./portal/auth-pages.tsx";
import { findNumbersPages } from "./portal/find-numbers-pages.tsx";
import { numberKycPages } from "./portal/number-kyc-pages.tsx";
import { numberLifePages } from "./portal/number-life-pages.tsx";
import { numberPages } from "./portal/numbers-pages.tsx";
import { orderPages } from "./portal/orders-pages.tsx";
import { profileDetailPages } from "./portal/profile-detail-pages.tsx";
import { profilePages } from "./portal/profiles-pages.tsx";
import { reservationPages } from "./portal/reservations-pages.tsx";
import { teamPages } from "./portal/team-pages.tsx";
import { webhookPages } from "./portal/webhook-pages.tsx";
import { uiAssets } from "./ui/document.tsx";
import { pageErrorHandler } from "./ui/error-page.tsx";
import { boundedFormBody, sameOriginForms } from "./ui/form-guard.tsx";

/**
 * `/` serves nothing of its own: a browser (an Accept that prefers HTML) is sent to the portal, where the customers
 * are; an API client (JSON, `*\/*`, no Accept) gets the 404 problem of any unknown path. Either way the answer varies
 * with Accept.
 */
const rootForBrowsers: MiddlewareHandler<AppEnv> = async (c, next) => {
  const wants = accepts(c, { header: "Accept", supports: ["text/html", "application/json"], default: "application/json" });
  if ((c.req.method === "GET" || c.req.method === "HEAD") && wants === "text/html") {
    c.header("Vary", "Accept");
    return c.redirect("/portal", 302);
  }
  await next();
  c.res.headers.append("Vary", "Accept");
};

export type { AppType } from "./api.ts";

function mountPages(app: AppRouter): void {
  app
    .use("/", rootForBrowsers)
    .use("/portal/*", portalPageHeaders, noStore, sameOriginForms, boundedFormBody)
    .use("/portal", portalPageHeaders, noStore)
    // The public pages first: a route that answers ends the chain before the session guard of the audience below.
    .route("/", uiAssets)
    .route("/", publicPortalPages)
    .route(
      "/portal",
      portalAudience()
        .route("/", signOut)
        .route("/", orderPages)
        .route("/", numberPages)
        .route("/", findNumbersPages)
        .route("/", reservationPages)
        .route("/", numberLifePages)
        .route("/", numberKycPages)
        .route("/", profilePages)
        .route("/", profileDetailPages)
        .route("/", apiKeyPages)
        .route("/", teamPages)
        .route("/", webhookPages)
        .route("/", activityPages),
    )
    .use("/ops/*", portalPageHeaders, noStore, sameOriginForms, boundedFormBody)
    .use("/ops", portalPageHeaders, noStore)
    .route("/", consoleSignIn)
    .route(
      "/ops",
      consoleAudience()
        .route("/", consoleHome)
        .route("/", queuePages)
        .route("/", reviewPages)
        .route("/", verificationReviewPages)
        .route("/", numbersPages)
        .route("/", anyNumberPages)
        .route("/", stockPages)
        .route("/", catalogPages)
        .route("/", staffPages)
        .route("/", auditPages)
        .route("/", accountPages),
    );
}

const portalErrorPage = pageErrorHandler({ href: "/portal/orders", label: "Back to the portal" });
const consoleErrorPage = pageErrorHandler({ href: "/ops", label: "Back to the console" });

export function createApp(): AppType {
  const { app, routes } = buildApp(mountPages);
  // Errors on the pages' paths are pages; the API's stay problem+json.
  app.onError((error, c) => {
    if (isUnder("/portal", c.req.path)) return portalErrorPage(error, c);
    if (isUnder("/ops", c.req.path)) return consoleErrorPage(error, c);
    return handleError(error, c);
  });
  return routes;
}

function isUnder(base: string, path: string): boolean {
  return path === base || path.startsWith(`${base}/`);
}
