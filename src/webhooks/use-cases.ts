// Webhook endpoint actions shared by the customer API and the portal.
import type { Refusal } from "../db/outcome.ts";
import type { WebhookEndpointRow } from "../db/schema.ts";
import type { Work } from "../env.ts";
import { done, notFound, Problem, type Result, refusals, refused, validationError } from "../lib/problem.ts";
import { deploymentUrlErrors } from "./schemas.ts";
import {
  createEndpoint,
  type DeliveryWithEvent,
  deleteEndpoint,
  type EndpointChanges,
  type NewEndpoint,
  retryDelivery,
  rotateSecret,
  sendTestEvent,
  updateEndpoint,
} from "./store.ts";

const noEndpoint = () => notFound("Webhook endpoint");

function disabled(action: string): Problem<"conflict"> {
  return new Problem("conflict", `The endpoint is disabled and is sent nothing; enable it before ${action}`);
}

function endpointOrNotFound(outcome: { ok: true; value: WebhookEndpointRow } | Refusal<"not_found">) {
  return outcome.ok ? done(outcome.value) : refused(noEndpoint());
}

/** The deployment's URL rule (an https:// URL of a public host, unless insecure URLs are allowed): a 400 on `url`. */
function urlRefusal(work: Work, url: string | undefined): Problem<"validation_error"> | undefined {
  const errors = deploymentUrlErrors(work.deployment, url);
  return errors.length > 0 ? validationError(errors) : undefined;
}

export const ADD_ENDPOINT_REFUSALS = refusals("validation_error", "conflict");

/** A new endpoint of the account (at most MAX_ENDPOINTS), enabled, with its secret (shown once). */
export async function addEndpoint(
  work: Work,
  customerId: string,
  endpoint: NewEndpoint,
): Promise<Result<WebhookEndpointRow, typeof ADD_ENDPOINT_REFUSALS>> {
  const badUrl = urlRefusal(work, endpoint.url);
  if (badUrl) return refused(badUrl);
  const created = await createEndpoint(work.db, work, customerId, endpoint, work.now);
  if (created.ok) return done(created.value);
  return refused(new Problem("conflict", `An account has at most ${created.limit} webhook endpoints; delete one first`));
}

/** The endpoint is not the account's: changing, deleting or rotating it. */
export const ENDPOINT_REFUSALS = refusals("not_found");

/** A change's URL judged by the deployment's rule, of an endpoint of the account. */
export const CHANGE_ENDPOINT_REFUSALS = refusals("validation_error", "not_found");

export async function changeEndpoint(
  work: Work,
  customerId: string,
  endpointId: string,
  changes: EndpointChanges,
): Promise<Result<WebhookEndpointRow, typeof CHANGE_ENDPOINT_REFUSALS>> {
  const badUrl = urlRefusal(work, changes.url);
  if (badUrl) return refused(badUrl);
  return endpointOrNotFound(await updateEndpoint(work.db, work, customerId, endpointId, changes, work.now));
}

/** Deletes the endpoint and its deliveries (pending ones are cancelled). */
export async function removeEndpoint(
  work: Work,
  customerId: string,
  endpointId: string,
): Promise<Result<WebhookEndpointRow, typeof ENDPOINT_REFUSALS>> {
  return endpointOrNotFound(await deleteEndpoint(work.db, work, customerId, endpointId, work.now));
}

/** A new signing secret (shown once); the old one signs beside it for 24 hours. */
export async function rotateEndpointSecret(
  work: Work,
  customerId: string,
  endpointId: string,
): Promise<Result<WebhookEndpointRow, typeof ENDPOINT_REFUSALS>> {
  return endpointOrNotFound(await rotateSecret(work.db, work, customerId, endpointId, work.now));
}

/** Sending to an endpoint: it is not the account's, or it is disabled (as is a delivery on its way, for a retry). */
export const SEND_REFUSALS = refusals("not_found", "conflict");

/** A webhook.test event delivered to this endpoint only. */
export async function sendTest(
  work: Work,
  customerId: string,
  endpointId: string,
): Promise<Result<DeliveryWithEvent, typeof SEND_REFUSALS>> {
  const sent = await sendTestEvent(work.db, work.outbox, customerId, endpointId, work.now);
  if (sent.ok) return done(sent.value);
  return refused(sent.reason === "not_found" ? noEndpoint() : disabled("sending it a test event"));
}

/** A finished delivery sent again now, its attempts going on. */
export async function redeliver(
  work: Work,
  customerId: string,
  endpointId: string,
  deliveryId: string,
): Promise<Result<DeliveryWithEvent, typeof SEND_REFUSALS>> {
  const retried = await retryDelivery(work.db, work.outbox, customerId, endpointId, deliveryId, work.now);
  if (retried.ok) return done(retried.value);
  if (retried.reason === "not_found") return refused(notFound("Delivery"));
  if (retried.state === "disabled") return refused(disabled("retrying a delivery"));
  return refused(new Problem("conflict", "The delivery is pending: it is on its way already"));
}
