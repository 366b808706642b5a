// Public routes about the service: health and problem type descriptions.
import { createRoute, z } from "@hono/zod-openapi";
import type { AppEnv } from "../env.ts";
import { errorResponses, jsonResponse, PUBLIC_SECURITY } from "../http/openapi.ts";
import { publicOrigin } from "../http/public-origin.ts";
import { createRouter } from "../http/router.ts";
import { notFound, PROBLEM_CODES, PROBLEMS, type ProblemCode } from "../lib/problem.ts";

const operation = { tags: ["Service"], security: PUBLIC_SECURITY };

const problemTypeSchema = z
  .object({
    type: z.string().openapi({ example: "https://api.example.com/problems/not_found" }),
    code: z.enum(PROBLEM_CODES),
    status: z.int().openapi({ example: 404 }),
    title: z.string().openapi({ example: "Not found" }),
  })
  .openapi("ProblemType");

export const serviceRoutes = createRouter<AppEnv>()
  .openapi(
    createRoute({
      ...operation,
      operationId: "getHealth",
      method: "get",
      path: "/healthz",
      summary: "Liveness check",
      responses: {
        200: jsonResponse(z.object({ status: z.literal("ok") }).openapi("Health"), "The service is up."),
      },
    }),
    (c) => c.json({ status: "ok" as const }, 200),
  )
  .openapi(
    createRoute({
      ...operation,
      operationId: "getProblemType",
      method: "get",
      path: "/problems/{code}",
      summary: "Describe a problem type",
      description: "The `type` URI of every problem resolves here, to what its code means.",
      request: {
        params: z.object({
          code: z.string().openapi({
            param: { name: "code", in: "path" },
            example: "not_found",
          }),
        }),
      },
      responses: {
        200: jsonResponse(problemTypeSchema, "The problem type."),
        ...errorResponses(["not_found"]),
      },
    }),
    (c) => {
      const { code } = c.req.valid("param");
      if (!Object.hasOwn(PROBLEMS, code)) throw notFound("Problem type");
      const { status, title } = PROBLEMS[code as ProblemCode];
      return c.json(
        {
          type: `${publicOrigin(c)}/problems/${code}`,
          code: code as ProblemCode,
          status,
          title,
        },
        200,
      );
    },
  );
