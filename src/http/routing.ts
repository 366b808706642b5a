// Fallback answers: 405 with Allow when the path exists under other methods, else 404.
import type { Context, Hono } from "hono";
import type { AppEnv } from "../env.ts";
import { Problem } from "../lib/problem.ts";
import { problemResponse } from "./problem.ts";

type RouteTable = { method: string; pattern: RegExp }[];

function compile(app: Hono<AppEnv>): RouteTable {
  return app.routes
    .filter((route) => route.method !== "ALL")
    .map((route) => ({
      method: route.method,
      pattern: new RegExp(
        `^${route.path
          .replace(/[.+?^${}()|[\]\\]/g, "\\$&")
          .replace(/:[^/]+/g, "[^/]+")
          .replace(/\*/g, ".*")}$`,
      ),
    }));
}

/**
 * The Hono notFound handler; it reads the app's route table once, on first use. It returns its answer rather
 * than throwing, because Hono runs notFound outside the middleware chain's error handling.
 */
export function unmatchedRequest(app: Hono<AppEnv>) {
  let table: RouteTable | undefined;
  return (c: Context<AppEnv>): Response => {
    table ??= compile(app);
    const methods = new Set(table.filter((r) => r.pattern.test(c.req.path)).map((r) => r.method));
    if (methods.size === 0) return problemResponse(c, new Problem("not_found", `No route for ${c.req.path}`));
    if (methods.has("GET")) methods.add("HEAD");
    const allow = [...methods].sort().join(", ");
    return problemResponse(
      c,
      new Problem("method_not_allowed", `${c.req.method} is not allowed here; use ${allow}`, { headers: { Allow: allow } }),
    );
  };
}
