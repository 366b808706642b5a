// createApp(): the middleware chain, every route, the error answers, /openapi.json and /docs.
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { bodyLimit } from "hono/body-limit";
import { adminRoutes } from "./admin/routes.ts";
import type { AppEnv } from "./env.ts";
import { rateLimitByKey, requireAdmin, requireApiKey, requireOwnSlug } from "./http/auth.ts";
import { DOCS_HTML } from "./http/docs.ts";
import { jsonResponse, securitySchemes, withBookmarkHeader } from "./http/openapi.ts";
import { BOOKMARK_PATTERN } from "./db/session.ts";
import { ApiError, handleError, notFound, PROBLEMS, type ProblemCode } from "./http/problem.ts";
import { requestContext } from "./http/request-context.ts";
import { unmatchedRequest } from "./http/routing.ts";
import { validationHook } from "./http/validation.ts";
import { kycRoutes } from "./kyc/routes.ts";
import { numberRoutes } from "./numbers/routes.ts";
import { orderRoutes } from "./orders/routes.ts";
import { userRoutes } from "./users/routes.ts";

export const JSON_BODY_LIMIT = 64 * 1024;

const API_DESCRIPTION =
  "Order virtual phone numbers in bulk and verify the identity and address (KYC) behind each number. " +
  "Customer endpoints take an API key (Authorization: Bearer vnk_… or X-API-Key); /admin takes the operator's " +
  "ADMIN_TOKEN. Errors are RFC 9457 problem details (application/problem+json) with a stable `code`. Every " +
  "authenticated response carries x-d1-bookmark; send the last one back to read your own writes on any replica.";

const healthRoute = createRoute({
  method: "get",
  path: "/healthz",
  tags: ["Service"],
  summary: "Liveness check",
  responses: { 200: jsonResponse(z.object({ status: z.literal("ok") }), "The service is up.") },
});

export function createApp() {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });

  app.use("*", requestContext);
  const jsonBodyLimit = bodyLimit({
    maxSize: JSON_BODY_LIMIT,
    onError: () => {
      throw new ApiError("payload_too_large", `JSON bodies are limited to ${JSON_BODY_LIMIT} bytes`);
    },
  });
  app.use("/api/*", jsonBodyLimit, requireApiKey, rateLimitByKey);
  app.use("/api/customers/:customer_slug/*", requireOwnSlug);
  // File uploads bound their own body (10 MiB); every other /v1 body is JSON.
  app.use("/v1/*", requireApiKey, rateLimitByKey);
  app.use("/v1/numbers/:number_id/KYC/address", jsonBodyLimit);
  app.use("/admin/*", jsonBodyLimit, requireAdmin);

  app.openapi(healthRoute, (c) => c.json({ status: "ok" as const }, 200));
  app.route("/", orderRoutes);
  app.route("/", numberRoutes);
  app.route("/", userRoutes);
  app.route("/", kycRoutes);
  app.route("/", adminRoutes);

  for (const [name, scheme] of Object.entries(securitySchemes)) {
    app.openAPIRegistry.registerComponent("securitySchemes", name, scheme);
  }
  app.get("/openapi.json", (c) => {
    const document = app.getOpenAPI31Document({
      openapi: "3.1.0",
      info: { title: "virtual-numbers API", version: "1.0.0", description: API_DESCRIPTION },
      servers: [{ url: new URL(c.req.url).origin }],
    });
    return c.json(withBookmarkHeader(document, BOOKMARK_PATTERN));
  });
  app.get("/docs", (c) => c.html(DOCS_HTML));
  // The `type` URI of every problem resolves to what the code means.
  app.get("/problems/:code", (c) => {
    const code = c.req.param("code");
    if (!Object.hasOwn(PROBLEMS, code)) throw notFound("Problem type");
    const { status, title } = PROBLEMS[code as ProblemCode];
    return c.json({ type: `${new URL(c.req.url).origin}/problems/${code}`, code, status, title });
  });

  app.notFound(unmatchedRequest(app));
  app.onError(handleError);
  return app;
}
