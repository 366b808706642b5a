// Creates routers whose validation failures all become validation_error problems.
import { OpenAPIHono } from "@hono/zod-openapi";
import type { Env } from "hono";
import { validationHook } from "./validation.ts";

export function createRouter<E extends Env>() {
  return new OpenAPIHono<E>({ defaultHook: (result) => validationHook(result) });
}
