// The OpenAPI 3.1 `webhooks` section (WEBHOOKS.md, Delivery).
import { type OpenAPIHono, z } from "@hono/zod-openapi";
import { EVENT_SCHEMAS_BY_DATA, EVENT_TYPES_BY_DATA } from "./schemas.ts";

const signatureHeaders = z.object({
  "webhook-id": z.string().openapi({
    description: "The event's id; the same on every retry. Receivers de-duplicate on it.",
    example: "evt_8c5e2b1a-3f4d-4e6a-9b7c-1d2e3f4a5b6c",
  }),
  "webhook-timestamp": z.string().openapi({ description: "Unix seconds of this attempt.", example: "1795334400" }),
  "webhook-signature": z.string().openapi({
    description:
      "Space-separated `v1,<base64 HMAC-SHA256>` of `{webhook-id}.{webhook-timestamp}.{body}`, keyed with the " +
      "base64-decoded endpoint secret (after `whsec_`); one entry per valid secret during a rotation (Standard Webhooks).",
    example: "v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=",
  }),
  "user-agent": z.string().openapi({ example: "virtual-numbers-webhooks/1" }),
});

const DELIVERY_RULES =
  "Any 2xx within 15 s acknowledges it. Anything else is retried after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h " +
  "and 24 h (±10 %); a redirect is not followed; 410 disables the endpoint; 429 and 503 with Retry-After delay the " +
  "next attempt at least that much. At least once and unordered: order by `timestamp`.";

/** One webhook per event type under `webhooks`, named after the type, its body the event object of its shape. */
export function describeWebhooks(registry: OpenAPIHono["openAPIRegistry"]): void {
  for (const [shape, types] of Object.entries(EVENT_TYPES_BY_DATA) as [keyof typeof EVENT_TYPES_BY_DATA, readonly string[]][]) {
    for (const type of types) {
      registry.registerWebhook({
        method: "post",
        path: type,
        operationId: `webhook_${type.replace(".", "_")}`,
        summary: `The ${type} event`,
        description: `Posted to every enabled endpoint that takes \`${type}\`. ${DELIVERY_RULES}`,
        tags: ["Webhooks"],
        // Deliveries carry a signature, not a credential of ours.
        security: [],
        request: {
          headers: signatureHeaders,
          body: { required: true, content: { "application/json": { schema: EVENT_SCHEMAS_BY_DATA[shape] } } },
        },
        responses: {
          200: { description: "Received (any 2xx)." },
          410: { description: "Gone: the endpoint is disabled and gets no more deliveries." },
        },
      });
    }
  }
}
