// Form protection for the portal and console: the Origin check (hono/csrf), a bounded UTF-8 body, and a per-session
// CSRF token in a hidden field, never in a URL.
import type { Context, MiddlewareHandler } from "hono";
import { csrf } from "hono/csrf";
import { firstFormPart, routeReadsOwnMultipart } from "../http/multipart.ts";
import { isMultipart, requestBody } from "../http/request-body.ts";
import { toBase64Url } from "../lib/base64.ts";
import { decodeUtf8 } from "../lib/content.ts";
import { CSRF_FIELD } from "./components.tsx";
import { renderDocument } from "./document.tsx";
import { readForm } from "./forms.tsx";

const encoder = new TextEncoder();

/** Cross-site form posts are refused: a request passes with `Sec-Fetch-Site: same-origin` or an Origin of this host. */
export const sameOriginForms = csrf();

/**
 * A session's CSRF token: an HMAC of "csrf" keyed with the session's secret, which only its cookie holds (the portal's
 * session id, of which D1 has only the hash; the console's Access token), so nothing stored reveals it, and it changes
 * with every session.
 */
export async function csrfTokenFor(sessionToken: string): Promise<string> {
  const key = await crypto.subtle.importKey("raw", encoder.encode(sessionToken), { name: "HMAC", hash: "SHA-256" }, false, [
    "sign",
  ]);
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, encoder.encode("csrf")));
  return toBase64Url(mac);
}

/** The text of a multipart form's first part when it is the field `name`, read without the parts after it. */
async function firstFieldNamed(request: Request, name: string): Promise<string | undefined> {
  const part = await firstFormPart(request);
  return part?.name === name && part.filename === undefined ? decodeUtf8(part.data) : undefined;
}

function sameToken(a: string, b: string): boolean {
  const x = encoder.encode(a);
  const y = encoder.encode(b);
  return x.byteLength === y.byteLength && crypto.subtle.timingSafeEqual(x, y);
}

/**
 * On a state-changing request, the "form expired" page unless the form carries the session's CSRF token; else
 * undefined. An upload's form carries it as its first part, and only that part is read here: the file is read only
 * once the token and the upload's own checks passed (a full or locked verification is refused unread, as the API
 * refuses it).
 */
export async function refusedForm(c: Context, csrfToken: string): Promise<Response | undefined> {
  if (c.req.method === "GET" || c.req.method === "HEAD") return undefined;
  const sent = isMultipart(c.req.raw) ? await firstFieldNamed(c.req.raw, CSRF_FIELD) : (await readForm(c)).token;
  if (sent !== undefined && sameToken(sent, csrfToken)) return undefined;
  return renderDocument(
    c,
    "Form expired",
    <div class="card narrow">
      <h1>This form has expired</h1>
      <p>Nothing was done. Go back, reload the page and try again.</p>
    </div>,
    403,
  );
}

/**
 * A form's body read in bounded work (at most 64 KiB: src/http/request-body.ts) and refused unless it is UTF-8. A
 * multipart body goes only to a route that reads its own (the upload, readsOwnMultipartBody), with its own bounded
 * parser; to any other form it is refused (415), unread. Hono's parseBody then reads these bytes.
 */
export const boundedFormBody: MiddlewareHandler = async (c, next) => {
  if (c.req.raw.body && isMultipart(c.req.raw)) {
    if (routeReadsOwnMultipart(c)) return next();
    return renderDocument(
      c,
      "Not sent",
      <p class="card narrow">This form cannot be sent as multipart/form-data: nothing was done.</p>,
      415,
    );
  }
  if (c.req.raw.body) {
    const bytes = await requestBody(c.req.raw);
    if (decodeUtf8(bytes) === undefined) {
      return renderDocument(
        c,
        "Not sent",
        <p class="card narrow">This form's text is not valid UTF-8: nothing was done.</p>,
        400,
      );
    }
    // Its cache holds promises, though its type says otherwise.
    c.req.bodyCache.arrayBuffer = Promise.resolve(bytes.slice().buffer) as unknown as ArrayBuffer;
  }
  await next();
};
