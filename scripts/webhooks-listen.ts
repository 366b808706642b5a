// `npm run webhooks:listen`: a local receiver of the demo account's webhooks, like `stripe listen`. It listens on
// 127.0.0.1, points a webhook endpoint of the demo account at itself (the one it made before when it still exists),
// verifies each delivery's Standard Webhooks signature against the raw body with the `standardwebhooks` package, and
// prints each event as it arrives. Needs `npm start` running (which allows http:// endpoints locally).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage } from "node:http";
import path from "node:path";
import { parseArgs } from "node:util";
import { Webhook, WebhookVerificationError } from "standardwebhooks";
import { isHealthy, localSetupOrExit } from "./local-dev.ts";
import { DEMO_SLUG } from "./seed.ts";

// npm start's port and folder (PORT, VN_LOCAL_DIR): the API to call and the demo key it wrote.
const setup = localSetupOrExit();
const USAGE = `Usage: npm run webhooks:listen [-- --port 8788] [--api ${setup.base}]`;
const { values: options } = parseArgs({
  options: {
    port: { type: "string", default: "8788" },
    api: { type: "string", default: setup.base },
    help: { type: "boolean", default: false },
  },
});
if (options.help) {
  console.log(USAGE);
  process.exit(0);
}
const port = Number(options.port);
if (!Number.isInteger(port) || port < 1 || port > 65_535) fail(`--port must be a port number. ${USAGE}`);
const api = options.api.replace(/\/+$/, "");
const endpointsPath = `/api/customers/${DEMO_SLUG}/webhook-endpoints`;
const url = `http://127.0.0.1:${port}/`;
/** A receiver's body is an event of a few KiB; anything far larger is not one of ours. */
const MAX_BODY_BYTES = 1024 * 1024;

function fail(message: string): never {
  console.error(message);
  process.exit(1);
}

const apiKey = existsSync(setup.demoKey) ? readFileSync(setup.demoKey, "utf8").trim() : "";
if (!apiKey)
  fail(`No demo API key in ${path.relative(process.cwd(), setup.demoKey)}: run \`npm start\` first (in another terminal).`);

interface Endpoint {
  id: string;
  url: string;
  status: "enabled" | "disabled";
}

/** A call to the demo account's endpoints API; a refusal ends the script with the API's own explanation. */
async function callApi<T>(method: string, apiPath: string, body?: object): Promise<T> {
  const response = await fetch(`${api}${endpointsPath}${apiPath}`, {
    method,
    headers: { Authorization: `Bearer ${apiKey}`, ...(body ? { "Content-Type": "application/json" } : {}) },
    body: body && JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) fail(`${method} ${endpointsPath}${apiPath} answered ${response.status}: ${text}`);
  return JSON.parse(text) as T;
}

/** Waits for `npm start` to answer (it may still be starting); a minute at most. */
async function waitForApi(): Promise<void> {
  for (let attempt = 0; attempt < 120; attempt++) {
    if (await isHealthy(api)) return;
    if (attempt === 0) console.log(`Waiting for the API at ${api} (is \`npm start\` running?)…`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  fail(`The API at ${api} did not answer within a minute: start it with \`npm start\`.`);
}

interface SavedListener {
  endpointId: string;
  url: string;
  secret: string;
}

function savedListener(): SavedListener | undefined {
  try {
    const saved = JSON.parse(readFileSync(setup.listenerState, "utf8")) as SavedListener;
    return saved.url === url ? saved : undefined;
  } catch {
    return undefined;
  }
}

function saveListener(saved: SavedListener): SavedListener {
  mkdirSync(path.dirname(setup.listenerState), { recursive: true });
  writeFileSync(setup.listenerState, `${JSON.stringify(saved, null, 2)}\n`, { mode: 0o600 });
  return saved;
}

/** Every endpoint of the demo account: at most 10, so one page of 100 holds them all. */
async function listEndpoints(): Promise<Endpoint[]> {
  return (await callApi<{ data: Endpoint[] }>("GET", "?limit=100")).data;
}

/**
 * The endpoint at this receiver's URL and its secret: the one saved by an earlier run when it still exists; else one
 * at this URL made some other way, given a new secret (a secret is shown only at creation and rotation); else a new one.
 */
async function ensureEndpoint(): Promise<SavedListener & { status: Endpoint["status"] }> {
  const endpoints = await listEndpoints();
  const saved = savedListener();
  const kept = saved && endpoints.find((e) => e.id === saved.endpointId && e.url === url);
  if (saved && kept) return { ...saved, status: kept.status };
  const existing = endpoints.find((e) => e.url === url);
  if (existing) {
    const { secret } = await callApi<{ secret: string }>("POST", `/${existing.id}/rotate-secret`);
    console.log(`Rotated the secret of ${existing.id}, which points here already.`);
    return { ...saveListener({ endpointId: existing.id, url, secret }), status: existing.status };
  }
  const created = await callApi<Endpoint & { secret: string }>("POST", "", {
    url,
    description: "npm run webhooks:listen",
  });
  console.log(`Created ${created.id} for ${url}.`);
  return { ...saveListener({ endpointId: created.id, url, secret: created.secret }), status: created.status };
}

async function readBody(request: IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** The three Standard Webhooks headers as a plain object (what `verify` reads; a Headers instance it would not). */
function signatureHeaders(request: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const name of ["webhook-id", "webhook-timestamp", "webhook-signature"]) {
    const value = request.headers[name];
    if (typeof value === "string") headers[name] = value;
  }
  return headers;
}

interface Event {
  id: string;
  type: string;
  timestamp: string;
  data: Record<string, unknown>;
}

type Data = Record<string, unknown>;

/** One line about an event's data: the resource and what it says now. */
function summary(event: Event): string {
  const data = event.data;
  const orderLine = (order: Data) =>
    `order ${order.order_number} ${order.country_code} ${order.number_type} ×${order.quantity}: ${order.status}, ` +
    `${order.fulfilled_quantity}/${order.quantity} fulfilled`;
  if (event.type === "order.numbers_allocated") {
    const numbers = (data.numbers as Data[]).map((n) => n.phone_number);
    return `${orderLine(data.order as Data)}; +${numbers.length}: ${numbers.slice(0, 3).join(", ")}${numbers.length > 3 ? ", …" : ""}`;
  }
  if (event.type.startsWith("order.")) return orderLine(data);
  if (event.type.startsWith("kyc.document_")) {
    const document = data.document as Data;
    return `${document.id} (${document.document_type}, ${document.filename}) of ${data.kyc_id}`;
  }
  if (event.type.startsWith("kyc.")) return `${data.id} of ${data.number_id}: ${data.status}`;
  if (event.type === "webhook.test") return `test of ${data.webhook_endpoint_id}`;
  return JSON.stringify(data).slice(0, 120);
}

/** Set once the endpoint and its secret are known; a delivery before (to an endpoint left enabled) gets a 503, and is retried. */
let verifier: Webhook | undefined;
/** webhook-ids seen: a delivery may come more than once (at least once), and receivers de-duplicate on it. */
const seen = new Set<string>();

const server = createServer(async (request, response) => {
  if (request.method !== "POST") {
    response.writeHead(405, { Allow: "POST", "Content-Type": "text/plain" }).end("This receiver takes webhook POSTs only.\n");
    return;
  }
  const body = await readBody(request);
  if (body === undefined) {
    response.writeHead(413, { "Content-Type": "text/plain" }).end("Body too large for a webhook event.\n");
    return;
  }
  if (!verifier) {
    response.writeHead(503, { "Content-Type": "text/plain", "Retry-After": "1" }).end("Starting.\n");
    return;
  }
  let event: Event;
  try {
    event = verifier.verify(body, signatureHeaders(request)) as Event;
  } catch (error) {
    const reason = error instanceof WebhookVerificationError ? error.message : String(error);
    const hint =
      reason === "No matching signature found"
        ? ` (if the secret was rotated elsewhere, delete ${setup.listenerState} and restart)`
        : "";
    console.error(`✗ refused a delivery (webhook-id ${request.headers["webhook-id"] ?? "none"}): ${reason}${hint}`);
    response.writeHead(400, { "Content-Type": "text/plain" }).end(`Signature verification failed: ${reason}\n`);
    return;
  }
  const webhookId = request.headers["webhook-id"] as string;
  const again = seen.has(webhookId) ? "  (again)" : "";
  seen.add(webhookId);
  console.log(`${event.timestamp}  ${event.type.padEnd(24)} ${event.id}  ${summary(event)}${again}`);
  response.writeHead(204).end();
});

// Listening first: a port in use ends the script before it changes anything through the API.
await new Promise<void>((resolve) => {
  server.once("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EADDRINUSE") fail(`Port ${port} is taken: stop what uses it, or pass another with -- --port <n>.`);
    fail(String(error));
  });
  server.listen(port, "127.0.0.1", resolve);
});
await waitForApi();
const listener = await ensureEndpoint();
if (listener.status === "disabled") await callApi("PATCH", `/${listener.endpointId}`, { status: "enabled" });
verifier = new Webhook(listener.secret);
console.log(`
Listening on ${url} for the events of the demo account (${DEMO_SLUG}), endpoint ${listener.endpointId}.
Each delivery's signature is checked; bad ones are answered 400. Stop with Ctrl-C (the endpoint is disabled until the
next run, so events are not sent to a receiver that is not there).
`);

/** On the way out: the endpoint stops receiving (a later run enables it again), so no delivery fails for want of us. */
async function stop(): Promise<void> {
  server.close();
  await fetch(`${api}${endpointsPath}/${listener.endpointId}`, {
    method: "PATCH",
    headers: { Authorization: `Bearer ${apiKey}`, "Content-Type": "application/json" },
    body: JSON.stringify({ status: "disabled" }),
  }).then(
    (r) =>
      console.log(
        r.ok
          ? `\nDisabled ${listener.endpointId} until the next run.`
          : `\nCould not disable ${listener.endpointId} (${r.status}).`,
      ),
    () => console.log(`\nThe API is gone; ${listener.endpointId} stays enabled.`),
  );
  process.exit(0);
}
for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => void stop());
