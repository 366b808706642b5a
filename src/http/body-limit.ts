// How large a request body may be: JSON bodies are small; the one multipart route bounds its own.
import type { MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { AppEnv } from "../env.ts";
import { ApiError } from "./problem.ts";

const JSON_BODY_LIMIT = 64 * 1024;

const jsonBodyLimit = bodyLimit({
  maxSize: JSON_BODY_LIMIT,
  onError: () => {
    throw new ApiError("payload_too_large", `JSON bodies are limited to ${JSON_BODY_LIMIT} bytes`);
  },
});

/**
 * Every request body is held to the JSON limit, except multipart ones: the file upload is the only route that takes
 * them, and it bounds its own body (10 MiB) as it reads it. Any other route refuses a multipart body unread (415).
 */
export const requestBodyLimit: MiddlewareHandler<AppEnv> = (c, next) =>
  /^multipart\/form-data\s*;/i.test(c.req.header("Content-Type") ?? "") ? next() : jsonBodyLimit(c, next);
