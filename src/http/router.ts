// The one way a router is made: an OpenAPIHono whose every validation failure becomes one validation_error problem.
import { OpenAPIHono } from "@hono/zod-openapi";
import type { Env } from "hono";
import { validationHook } from "./validation.ts";

export function createRouter<E extends Env>() {
  return new OpenAPIHono<E>({ defaultHook: (result) => validationHook(result) });
}
