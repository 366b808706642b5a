// The HTTP API: every audience mounted at its path, plus the error handler, /openapi.json and /docs. Imports no portal
// page, so a Node script (npm run openapi) can load the API without JSX.

import { customerAudience, operatorAudience, publicAudience } from "./audiences.ts";
import { auditAdminRoutes } from "./audit/admin-routes.ts";
import { numberHistoryRoutes } from "./audit/number-routes.ts";
import { auditRoutes } from "./audit/routes.ts";
import { catalogAdminRoutes } from "./catalog/admin-routes.ts";
import { catalogRoutes } from "./catalog/routes.ts";
import { customerAdminRoutes } from "./customers/admin-routes.ts";
import type { AppEnv } from "./env.ts";
import { eventRoutes } from "./events/routes.ts";
import { describeWebhooks } from "./events/webhooks-description.ts";
import { apiDocument } from "./http/openapi.ts";
import { handleError } from "./http/problem.ts";
import { publicOrigin } from "./http/public-origin.ts";
import { strictJsonBody } from "./http/request-body.ts";
import { d1Bookmarks, requestContext } from "./http/request-context.ts";
import { createRouter } from "./http/router.ts";
import { unmatchedRequest } from "./http/routing.ts";
import { htmlPageHeaders, noStore, securityHeaders } from "./http/security-headers.ts";
import { kycAdminRoutes } from "./kyc/admin-routes.ts";
import { profileRoutes } from "./kyc/profile-routes.ts";
import { kycRoutes } from "./kyc/routes.ts";
import { numberAdminListRoutes } from "./numbers/admin-list-routes.ts";
import { numberAdminRoutes } from "./numbers/admin-routes.ts";
import { numberDetailRoutes } from "./numbers/details-routes.ts";
import { numberExportRoutes } from "./numbers/export-routes.ts";
import { numberLifeAdminRoutes } from "./numbers/life-admin-routes.ts";
import { numberLifeRoutes } from "./numbers/life-routes.ts";
import { numberRoutes } from "./numbers/routes.ts";
import { orderAdminRoutes } from "./orders/admin-routes.ts";
import { orderRoutes } from "./orders/routes.ts";
import { reservationRoutes } from "./reservations/routes.ts";
import { searchRoutes } from "./search/routes.ts";
import { docsPage } from "./service/docs.ts";
import { serviceRoutes } from "./service/routes.ts";
import { staffAdminRoutes } from "./staff/admin-routes.ts";
import { stockAdminRoutes } from "./stock/admin-routes.ts";
import { userAdminRoutes } from "./users/admin-routes.ts";
import { userRoutes } from "./users/routes.ts";
import { outboxPerRequest } from "./webhooks/outbox.ts";
import { webhookEndpointRoutes } from "./webhooks/routes.ts";

/** Every route, each reached only through its audience, on `app` (returned typed, for the client). */
function mountAudiences(app: ReturnType<typeof createRouter<AppEnv>>) {
  return (
    app
      // Outermost, so every answer has them, whoever made it (a guard, the error handler, the unknown-route answer).
      .use(securityHeaders)
      .use(requestContext, outboxPerRequest)
      .use("/api/*", noStore, d1Bookmarks)
      .use("/v1/*", noStore, d1Bookmarks)
      .use("/admin/*", noStore, d1Bookmarks)
      // Before the guards: an oversized body is refused unread, whoever sends it. (The KYC routes limit their one JSON
      // body themselves, after the guard; their upload reads its own, larger, multipart body.)
      .use("/api/*", strictJsonBody)
      .use("/admin/*", strictJsonBody)
      .route("/", publicAudience().route("/", serviceRoutes).get("/docs", htmlPageHeaders, docsPage))
      .route(
        "/api",
        customerAudience()
          .route("/", orderRoutes)
          .route("/", reservationRoutes)
          .route("/", numberRoutes)
          .route("/", searchRoutes)
          .route("/", numberLifeRoutes)
          .route("/", numberExportRoutes)
          .route("/", numberDetailRoutes)
          .route("/", userRoutes)
          .route("/", eventRoutes)
          .route("/", webhookEndpointRoutes)
          .route("/", auditRoutes)
          .route("/", catalogRoutes)
          .route("/", profileRoutes),
      )
      .route("/v1", customerAudience().route("/", kycRoutes))
      .route(
        "/admin",
        operatorAudience()
          .route("/", customerAdminRoutes)
          .route("/", catalogAdminRoutes)
          .route("/", orderAdminRoutes)
          .route("/", numberAdminRoutes)
          .route("/", numberLifeAdminRoutes)
          .route("/", numberAdminListRoutes)
          .route("/", numberHistoryRoutes)
          .route("/", userAdminRoutes)
          .route("/", kycAdminRoutes)
          .route("/", staffAdminRoutes)
          .route("/", stockAdminRoutes)
          .route("/", auditAdminRoutes),
      )
  );
}

/** The app's type, with every route's input and output: what `hc<AppType>` builds a typed client from. */
export type AppType = ReturnType<typeof mountAudiences>;

export type AppRouter = ReturnType<typeof createRouter<AppEnv>>;

/** The API on a new app, with `more` mounted after it (the portal), then the answers for no route and for errors. */
export function buildApp(more: (app: AppRouter) => void = () => {}) {
  const app = createRouter<AppEnv>();
  const routes = mountAudiences(app);
  more(app);
  describeWebhooks(app.openAPIRegistry);
  // Served from the same app it describes, so the document always lists every route the app has.
  app.route(
    "/",
    publicAudience().get("/openapi.json", (c) => c.json(apiDocument(app, publicOrigin(c)))),
  );
  app.notFound(unmatchedRequest(app));
  app.onError(handleError);
  return { app, routes };
}

/** The API description, for a server at `origin` (relative to wherever it is served when absent). */
export function describeApi(origin?: string) {
  return apiDocument(buildApp().app, origin);
}
