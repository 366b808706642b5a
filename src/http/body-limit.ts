// How large a JSON request body may be. Applied where JSON bodies are taken: the customer API under /api, the
// operator API, and the KYC address; the file upload bounds its own multipart body (10 MiB) as it reads it.
import { bodyLimit } from "hono/body-limit";
import { ApiError } from "./problem.ts";

const JSON_BODY_LIMIT = 64 * 1024;

export const jsonBodyLimit = bodyLimit({
  maxSize: JSON_BODY_LIMIT,
  onError: () => {
    throw new ApiError("payload_too_large", `JSON bodies are limited to ${JSON_BODY_LIMIT} bytes`);
  },
});
