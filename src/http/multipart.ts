// Reads a request's multipart/form-data body once, or only its first part for a guard's check.
import type { Context, MiddlewareHandler } from "hono";
import { matchedRoutes } from "hono/route";
import { delimiterOf, type FormPart, opening, parseMultipart, partAt } from "../lib/multipart.ts";
import { bodyStartGrown, requestBody } from "./request-body.ts";

/** How much of a body a form's first part may take: a hidden field's name and value, with room to spare. */
const MAX_FIRST_PART_BYTES = 16 * 1024;

/**
 * The first part of a multipart/form-data body, read without reading what follows it (a guard's look at a form's
 * first field before the route decides whether to read the rest); the bytes read stay for formParts. Undefined when
 * the body has no part, or its first part does not end within MAX_FIRST_PART_BYTES.
 */
export async function firstFormPart(request: Request): Promise<FormPart | undefined> {
  const delimiter = delimiterOf(request.headers.get("Content-Type") ?? undefined);
  for (;;) {
    const start = await bodyStartGrown(request);
    if (start === undefined) return undefined;
    const at = opening(start, delimiter);
    const found = at === -1 ? "incomplete" : partAt(start, at, delimiter);
    if (found === null) return undefined;
    if (found !== "incomplete") return found.part;
    if (start.length >= MAX_FIRST_PART_BYTES) return undefined;
  }
}

const forms = new WeakMap<Request, Promise<FormPart[]>>();

/** The parts of a request's multipart/form-data body, read and parsed once however often asked. */
export function formParts(request: Request): Promise<FormPart[]> {
  let parts = forms.get(request);
  if (!parts) {
    const delimiter = delimiterOf(request.headers.get("Content-Type") ?? undefined);
    parts = requestBody(request).then((body) => parseMultipart(body, delimiter));
    forms.set(request, parts);
  }
  return parts;
}

/**
 * The mark of a route that reads its own multipart body (an upload): put it in the route's middleware. Only such a
 * route is sent a multipart body: the idempotency middleware defers its key's claim to it (claimBeforeReadingBody),
 * and the portal's forms refuse multipart everywhere else, so no other handler reads a body it cannot parse in bounded
 * work, or one a guard has begun to read.
 */
export const readsOwnMultipartBody: MiddlewareHandler = (_c, next) => next();

/** Whether the route this request matched carries readsOwnMultipartBody. */
export function routeReadsOwnMultipart(c: Context): boolean {
  return matchedRoutes(c).some((route) => route.handler === readsOwnMultipartBody);
}
