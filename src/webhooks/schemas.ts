// Wire format of webhook endpoints and deliveries, and the mapping between wire and store.
import { type Hook, z } from "@hono/zod-openapi";
import type { Env } from "hono";
import {
  DELIVERY_STATUSES,
  EVENT_TYPES,
  EVERY_EVENT_TYPE,
  type EventTypeSelection,
  WEBHOOK_ENDPOINT_STATUSES,
  type WebhookEndpointRow,
} from "../db/schema.ts";
import { type Bindings, type Deployment, deploymentOf } from "../env.ts";
import { formatCharacterIn, formatCharacterMessage, prefixedIdParam, singleLineText, timestampSchema } from "../http/fields.ts";
import { commaList, pageOnlyQuery, pageSchema } from "../http/pagination.ts";
import { issuesToFieldErrors, validationHook } from "../http/validation.ts";
import { withPrefix } from "../lib/ids.ts";
import { type FieldError, validationError } from "../lib/problem.ts";
import { toIso, toIsoOrNull } from "../lib/time.ts";
import { type DeliveryWithEvent, type EndpointChanges, type NewEndpoint, subscribedTypes, takesEveryType } from "./store.ts";

const MAX_URL_LENGTH = 2048;

/**
 * Host names that never leave the machine or the private network, whatever they resolve to: localhost, the special-use
 * .local, .internal, .localhost and .home.arpa names (RFC 6761, 6762, 8375), and single-label names (`https://intranet/`),
 * which only a local resolver's search list completes.
 */
const LOCAL_NAME = /(?:^localhost|\.local|\.internal|\.localhost|(?:^|\.)home\.arpa)$|^[^.]+$/;
const LOCAL_NAME_REFUSED =
  "must name a public host: not localhost, a name without a dot, nor a .local, .internal, .localhost or .home.arpa name";
const IPV4_HOST = /^\d+\.\d+\.\d+\.\d+$/;
/** Loopback hosts, allowed only where insecure URLs are (local development): localhost, 127.0.0.0/8, [::1]. */
const LOOPBACK_HOST = /^(?:localhost|127\.\d+\.\d+\.\d+|\[::1\])$/;

/** A C0 control character, space or DEL: the URL parser drops or encodes them, so the text would not be the URL fetched. */
function hasSpaceOrControl(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code <= 0x20 || code === 0x7f) return true;
  }
  return false;
}

/**
 * The URL rules of WEBHOOKS.md, every one of them: an absolute https:// URL of at most 2,048 characters, without user
 * info, whose host is a name (not an IP literal) that is not local (LOCAL_NAME).
 * `allowInsecure` (WEBHOOK_ALLOW_INSECURE_URLS, local development and tests) also takes http:// and loopback hosts.
 * Hosts are judged as the WHATWG URL parser (which fetch uses) reads them: an IPv4 address in any form it accepts
 * (2130706433, 0x7f.1, 127.1) is normalised to dotted decimal, names are lowercased and percent-decoded. The URL is
 * kept as written, so nothing is ever fetched but what the rules judged.
 */
function webhookUrl(allowInsecure: boolean) {
  return z
    .string()
    .max(MAX_URL_LENGTH)
    .superRefine((value, ctx) => {
      const refuse = (message: string) => ctx.addIssue({ code: "custom", message, input: value });
      if (hasSpaceOrControl(value)) return refuse("must not contain spaces or control characters");
      // Stored as written and shown on pages: nothing invisible (nor displaying in another order), no text without a
      // UTF-8 form.
      if (!value.isWellFormed()) return refuse("must be valid Unicode text (no unpaired surrogates)");
      const invisible = formatCharacterIn(value);
      if (invisible !== undefined) return refuse(formatCharacterMessage(invisible));
      let url: URL;
      try {
        url = new URL(value);
      } catch {
        return refuse("must be an absolute URL");
      }
      const schemes = allowInsecure ? ["https:", "http:"] : ["https:"];
      // Written out in full: the parser also reads "https:host" and "https:\\host" as https://host/.
      if (!schemes.includes(url.protocol) || !value.toLowerCase().startsWith(`${url.protocol}//`)) {
        return refuse(allowInsecure ? "must be an https:// or http:// URL" : "must be an https:// URL");
      }
      // Also refuses an empty user info ("https://@host/"), which the parser drops from the URL but not from the text.
      const authority = value.slice(url.protocol.length + 2).split(/[/\\?#]/, 1)[0] ?? "";
      if (url.username !== "" || url.password !== "" || authority.includes("@")) {
        return refuse("must not contain a user name or password");
      }
      const host = url.hostname.replace(/\.+$/, "");
      if (allowInsecure && LOOPBACK_HOST.test(host)) return;
      if (IPV4_HOST.test(host) || host.startsWith("[")) return refuse("must name its host, not an IP address");
      if (LOCAL_NAME.test(host)) return refuse(LOCAL_NAME_REFUSED);
    });
}

/**
 * The deployment's URL rule, beyond the body schema (which holds the rules with the insecure allowance, as the schema
 * cannot know the deployment): where insecure URLs are not allowed, the full rules' errors on the body's `url` (none
 * for a URL they take). The endpoint's actions refuse by it; their front ends add it to a failed schema's errors so
 * every invalid field is reported at once.
 */
export function deploymentUrlErrors(deployment: Deployment, url: unknown): FieldError[] {
  if (typeof url !== "string" || deployment.allowsInsecureWebhookUrls) return [];
  const strict = webhookUrl(false).safeParse(url);
  if (strict.success) return [];
  return issuesToFieldErrors(
    strict.error.issues.map((issue) => ({ ...issue, path: ["url", ...issue.path] })),
    "body",
  );
}

/**
 * The validation hook of the routes whose body has a `url`: a body the schema refuses is answered with the
 * deployment's URL rule's errors beside the schema's (the action judges a body the schema takes).
 */
export function webhookUrlHook<T>(
  result: Parameters<Hook<T, Env, string, unknown>>[0],
  c: { env: Pick<Bindings, "WEBHOOK_ALLOW_INSECURE_URLS"> },
): undefined {
  if (!result.success && result.target === "json") {
    // On a failure the validator passes the raw body as `data` too, which the hook's type leaves out.
    const body: unknown = "data" in result ? result.data : undefined;
    const url = typeof body === "object" && body !== null && "url" in body ? body.url : undefined;
    const urlErrors = deploymentUrlErrors(deploymentOf(c.env), url);
    if (urlErrors.length > 0) {
      const others = result.error.issues.filter((issue) => issue.path[0] !== "url");
      throw validationError([...issuesToFieldErrors(others, "body"), ...urlErrors]);
    }
  }
  validationHook(result);
  return undefined;
}

const URL_DESCRIPTION =
  `Where events are delivered: an absolute https:// URL of at most ${MAX_URL_LENGTH} characters, without user name or ` +
  "password, whose host is a name with a dot (not an IP address), not localhost and not a .local, .internal, " +
  ".localhost or .home.arpa name.";

const urlField = webhookUrl(true).openapi({
  description: URL_DESCRIPTION,
  format: "uri",
  example: "https://hooks.example.com/virtual-numbers",
});

/** The longest description of an endpoint, in characters. */
export const MAX_DESCRIPTION_LENGTH = 500;
const descriptionField = singleLineText()
  .max(MAX_DESCRIPTION_LENGTH)
  .openapi({
    description: `A label of your own, at most ${MAX_DESCRIPTION_LENGTH} characters.`,
    example: "Order fulfilment service",
  });

const eventTypesField = z
  .array(z.enum([...EVENT_TYPES, EVERY_EVENT_TYPE]))
  .min(1)
  .refine((types) => !types.includes(EVERY_EVENT_TYPE) || types.every((type) => type === EVERY_EVENT_TYPE), {
    error: `must be "${EVERY_EVENT_TYPE}" alone, or event types without it`,
  })
  .transform(
    (types): EventTypeSelection =>
      types.includes(EVERY_EVENT_TYPE) ? [EVERY_EVENT_TYPE] : EVENT_TYPES.filter((type) => types.includes(type)),
  )
  .openapi({
    description:
      'The event types delivered here, at least one; repeats are ignored. ["*"] (also the default) takes every type, ' +
      "present and future: types added later reach the endpoint too. A test event goes to the endpoint it is sent to, " +
      "whatever its types.",
    example: ["order.created", "order.fulfilled"],
  });

const endpointStatusSchema = z.enum(WEBHOOK_ENDPOINT_STATUSES);

export const webhookEndpointSchema = z
  .object({
    id: z.string().openapi({ example: "we_2b1f7c3e-5a4d-4e8f-9c0b-1d2e3f4a5b6c" }),
    url: z.string().openapi({ example: "https://hooks.example.com/virtual-numbers" }),
    description: z.string().nullable(),
    event_types: z.array(z.enum(EVENT_TYPES)).openapi({
      description: "The types delivered here: every current type when the endpoint takes every type, present and future.",
    }),
    every_event_type: z.boolean().openapi({
      description: 'Whether the endpoint takes every type, present and future (event_types ["*"], the default).',
    }),
    status: endpointStatusSchema.openapi({ description: "A disabled endpoint is sent nothing." }),
    created_at: timestampSchema,
    updated_at: timestampSchema,
  })
  .openapi("WebhookEndpoint");

const secretSchema = z.string().openapi({
  description:
    "The signing secret: whsec_ and the base64 of 32 random bytes. Shown only when the endpoint is created and when " +
    "the secret is rotated.",
  example: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw5pRWmV4yIDQ=",
});

export const createdWebhookEndpointSchema = webhookEndpointSchema
  .extend({ secret: secretSchema })
  .openapi("CreatedWebhookEndpoint");

export const rotatedSecretSchema = z.object({ secret: secretSchema }).openapi("WebhookEndpointSecret");

export const deletedWebhookEndpointSchema = z
  .object({ message: z.string(), deleted_at: timestampSchema })
  .openapi("WebhookEndpointDeleted");

export function toWebhookEndpoint(row: WebhookEndpointRow): z.infer<typeof webhookEndpointSchema> {
  return {
    id: withPrefix("we", row.id),
    url: row.url,
    description: row.description,
    event_types: subscribedTypes(row),
    every_event_type: takesEveryType(row),
    status: row.status,
    created_at: toIso(row.createdAt),
    updated_at: toIso(row.updatedAt),
  };
}

export const createWebhookEndpointBody = z
  .strictObject({
    url: urlField,
    description: descriptionField.optional(),
    event_types: eventTypesField.optional(),
  })
  .openapi("CreateWebhookEndpoint");

export const updateWebhookEndpointBody = z
  .strictObject({
    url: urlField.optional(),
    description: descriptionField.nullable().optional().openapi({ description: "null clears the description." }),
    event_types: eventTypesField.optional(),
    status: endpointStatusSchema.optional().openapi({ description: "disabled stops deliveries; enabled resumes them." }),
  })
  .refine((body) => Object.keys(body).length > 0, {
    error: "must contain at least one field to change",
  })
  .openapi("UpdateWebhookEndpoint");

export function toNewEndpoint(body: z.infer<typeof createWebhookEndpointBody>): NewEndpoint {
  return {
    url: body.url,
    description: body.description,
    eventTypes: body.event_types ?? [EVERY_EVENT_TYPE],
  };
}

export function toEndpointChanges(body: z.infer<typeof updateWebhookEndpointBody>): EndpointChanges {
  return {
    url: body.url,
    description: body.description,
    eventTypes: body.event_types,
    status: body.status,
  };
}

export const webhookEndpointPageSchema = pageSchema(webhookEndpointSchema, "WebhookEndpoint");

export const endpointIdParam = prefixedIdParam("we", "endpoint_id");
export const deliveryIdParam = prefixedIdParam("whd", "delivery_id");

export const deliverySchema = z
  .object({
    id: z.string().openapi({ example: "whd_7d0c2a9e-3b4f-4c1d-8e2f-6a5b4c3d2e1f" }),
    event_id: z.string().openapi({ example: "evt_0e9d8c7b-6a5f-4e3d-9c2b-1a0f9e8d7c6b" }),
    event_type: z.enum(EVENT_TYPES),
    status: z.enum(DELIVERY_STATUSES).openapi({
      description: "pending until an attempt succeeds (succeeded) or the last one fails (failed).",
    }),
    attempts: z.int().openapi({ description: "Attempts made so far.", example: 1 }),
    last_status_code: z.int().nullable().openapi({ description: "The HTTP status of the last attempt; null when it got none." }),
    last_error: z.string().nullable().openapi({ description: "Why the last attempt failed, if it did." }),
    next_attempt_at: timestampSchema.nullable().openapi({ description: "When the next attempt is due; null unless pending." }),
    created_at: timestampSchema,
    delivered_at: timestampSchema.nullable(),
  })
  .openapi("WebhookDelivery");

export function toDelivery({ delivery, eventType }: DeliveryWithEvent): z.infer<typeof deliverySchema> {
  return {
    id: withPrefix("whd", delivery.id),
    event_id: withPrefix("evt", delivery.eventId),
    event_type: eventType,
    status: delivery.status,
    attempts: delivery.attempts,
    last_status_code: delivery.lastStatusCode,
    last_error: delivery.lastError,
    next_attempt_at: toIsoOrNull(delivery.nextAttemptAt),
    created_at: toIso(delivery.createdAt),
    delivered_at: toIsoOrNull(delivery.deliveredAt),
  };
}

export const listDeliveriesQuery = pageOnlyQuery.extend({
  status: commaList(z.enum(DELIVERY_STATUSES), "status", "Delivery statuses."),
});

export const deliveryPageSchema = pageSchema(deliverySchema, "WebhookDelivery");
