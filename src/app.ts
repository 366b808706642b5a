// createApp(): the Worker's whole app: the API (src/api.ts) and the customer portal's pages under /portal.
import { type AppRouter, type AppType, buildApp } from "./api.ts";
import { handleError } from "./http/problem.ts";
import { noStore, portalPageHeaders } from "./http/security-headers.ts";
import { apiKeyPages } from "./portal/api-key-pages.tsx";
import { portalAudience } from "./portal/audience.ts";
import { publicPortalPages, signOut } from "./portal/auth-pages.tsx";
import { portalErrorPage } from "./portal/error-page.tsx";
import { numberPages } from "./portal/numbers-pages.tsx";
import { orderPages } from "./portal/orders-pages.tsx";
import { boundedFormBody, sameOriginForms } from "./portal/session-guard.tsx";
import { teamPages } from "./portal/team-pages.tsx";
import { webhookPages } from "./portal/webhook-pages.tsx";
import { uiAssets } from "./ui/document.tsx";

export type { AppType } from "./api.ts";

function mountPortal(app: AppRouter): void {
  app
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
        .route("/", apiKeyPages)
        .route("/", teamPages)
        .route("/", webhookPages),
    );
}

export function createApp(): AppType {
  const { app, routes } = buildApp(mountPortal);
  // Errors on the portal's paths are pages; the API's stay problem+json.
  app.onError((error, c) => (isPortalPath(c.req.path) ? portalErrorPage(error, c) : handleError(error, c)));
  return routes;
}

function isPortalPath(path: string): boolean {
  return path === "/portal" || path.startsWith("/portal/");
}
