// Idempotency-Key on every POST and PATCH (DECISIONS.md, Idempotency): a retry with the same key and request gets the
// first answer instead of running twice.
import type { Context, Env, MiddlewareHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { Database } from "../db/client.ts";
import {
  type Claim,
  claimIdempotencyKey,
  IDEMPOTENCY_RETENTION_MS,
  type IdempotencyRecord,
  isIdempotencyKeyTaken,
  recordIdempotentResponse,
  releaseIdempotencyKey,
} from "../db/idempotency.ts";
import type { AppEnv } from "../env.ts";
import { sha256Hex } from "../lib/api-key.ts";
import { describeError } from "../lib/describe-error.ts";
import { Problem, validationError } from "../lib/problem.ts";
import { seal, sealingKey, unseal } from "../lib/sealing.ts";
import { formParts, routeReadsOwnMultipart } from "./multipart.ts";
import { CLIENT_CLOSED_STATUS } from "./problem.ts";
import { isMultipart, requestBody } from "./request-body.ts";

export const IDEMPOTENCY_KEY_HEADER = "Idempotency-Key";
export const REPLAYED_HEADER = "Idempotent-Replayed";
const IDEMPOTENT_METHODS: ReadonlySet<string> = new Set(["POST", "PATCH"]);
/** 1-255 visible ASCII characters. */
export const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/** The scope of the operator's keys: customer scopes are account ids (uuids), so the two never meet. */
export const OPERATOR_SCOPE = "operator";

/**
 * Answers stored for replay: final ones below 500, except 401 and 429, where nothing ran. (Any other answer
 * releases the key: a 5xx, or a client that went away.)
 */
function isStoredAnswer(status: number): boolean {
  return status < 500 && status !== 401 && status !== 429 && status !== CLIENT_CLOSED_STATUS;
}

/**
 * The request's fingerprint: its method, path and content, each part length-prefixed so no two requests run into
 * one another. Content is the raw bytes of the body; for multipart, every part's name, file name, type and bytes,
 * but not the boundary, which clients regenerate on each retry.
 */
async function fingerprintOf(request: Request, path: string): Promise<string> {
  const digest = new crypto.DigestStream("SHA-256");
  const writer = digest.getWriter();
  const encoder = new TextEncoder();
  const write = async (label: string, bytes: Uint8Array) => {
    await writer.write(encoder.encode(`${label}:${bytes.byteLength}:`));
    await writer.write(bytes);
  };
  await write("method", encoder.encode(request.method));
  await write("path", encoder.encode(path));
  if (isMultipart(request)) {
    for (const part of await formParts(request)) {
      await write("name", encoder.encode(part.name));
      if (part.filename !== undefined) {
        await write("filename", encoder.encode(part.filename));
        await write("type", encoder.encode(part.contentType ?? ""));
      }
      await write("value", part.data);
    }
  } else {
    await write("body", await requestBody(request));
  }
  await writer.close();
  return [...new Uint8Array(await digest.digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** The headers a stored answer keeps: what says what the body is, where the new resource is, and what a 405 allows. */
const STORED_HEADERS = ["Content-Type", "Location", "Allow"] as const;

/** What is stored of an answer, besides its status. */
interface StoredAnswer {
  /** The id of the request that produced the answer: a replay carries it, as its body (a problem's request_id) does. */
  requestId: string;
  body: string;
  headers: Record<string, string>;
}

/**
 * The key that seals a stored answer, derived from the idempotency key itself: the answers (which may carry an API
 * key's plaintext, addresses, tax ids) are unreadable at rest to anyone who does not hold the idempotency key.
 */
function answerKey(idempotencyKey: string, scope: string): Promise<CryptoKey> {
  return sealingKey(idempotencyKey, scope, "idempotent-answer");
}

/**
 * A sealed answer larger than this goes to R2 (under ANSWER_PREFIX and its claim), its record keeping only where: a D1
 * row holds at most 2 MB, and an allocation of 10,000 numbers answers more.
 */
const MAX_ANSWER_IN_ROW = 1024 * 1024;
const ANSWER_PREFIX = "idempotency/";
const IN_BUCKET = "r2:";

/** Where the sealed answer is kept: in the record itself, or (a large one) in the bucket, the record saying where. */
async function keptAnswer(bucket: R2Bucket, claim: Claim, sealed: string): Promise<string> {
  if (sealed.length <= MAX_ANSWER_IN_ROW) return sealed;
  const key = `${ANSWER_PREFIX}${claim.claim}`;
  await bucket.put(key, sealed);
  return `${IN_BUCKET}${key}`;
}

async function sealedAnswer(bucket: R2Bucket, record: IdempotencyRecord): Promise<string> {
  const kept = record.response!;
  if (!kept.startsWith(IN_BUCKET)) return kept;
  const object = await bucket.get(kept.slice(IN_BUCKET.length));
  if (!object) throw new Error("a stored answer kept in R2 is missing");
  return object.text();
}

/** Deletes the answers kept in R2 for records past the retention (and a day's margin). Returns how many it deleted. */
export async function purgeExpiredAnswers(bucket: R2Bucket, now: number): Promise<number> {
  let deleted = 0;
  let cursor: string | undefined;
  do {
    const page = await bucket.list({ prefix: ANSWER_PREFIX, cursor });
    const expired = page.objects.filter((object) => object.uploaded.getTime() < now - 2 * IDEMPOTENCY_RETENTION_MS);
    if (expired.length > 0) await bucket.delete(expired.map((object) => object.key));
    deleted += expired.length;
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor);
  return deleted;
}

function replay(record: IdempotencyRecord, answer: StoredAnswer): Response {
  const headers = new Headers({ ...answer.headers, [REPLAYED_HEADER]: "true", "X-Request-Id": answer.requestId });
  return new Response(answer.body, { status: record.status!, headers });
}

function logRecordFailure(requestId: string, action: string, error: unknown): void {
  console.log(
    JSON.stringify({
      level: "warn",
      event: "idempotency-record-failed",
      action,
      request_id: requestId,
      error: describeError(error),
    }),
  );
}

/**
 * Claims the key. Should the claim fail, it may still have been written (a commit whose answer was lost): it is given
 * up again, so that a retry is not told the key is in use by a request that never ran.
 */
async function claimOrGiveUp(db: Database, claim: Claim, now: number): Promise<IdempotencyRecord> {
  try {
    return await claimIdempotencyKey(db, claim, now);
  } catch (error) {
    await releaseIdempotencyKey(db, claim).catch(() => undefined);
    throw error;
  }
}

/** Longer than any request runs: a claim this old belongs to a request whose Worker died, or whose answer was lost. */
const ABANDONED_AFTER_MS = 60_000;

/**
 * The key's first request has not answered. Usually it is still running: retry in a second. A claim past
 * ABANDONED_AFTER_MS will never answer; whether its request took effect is unknown, so it is never run again.
 */
function inUse(holder: IdempotencyRecord, now: number): Problem {
  if (now - holder.createdAt > ABANDONED_AFTER_MS) {
    return new Problem(
      "idempotency_key_in_use",
      "The first request with this Idempotency-Key never finished, and whether it took effect is unknown; look the " +
        "resource up, and use a new key for a new attempt",
    );
  }
  return new Problem("idempotency_key_in_use", "A request with this Idempotency-Key is still being processed", {
    headers: { "Retry-After": "1" },
  });
}

/** Claims a request's key when called; set for a multipart request whose route reads its own body (see below). */
const deferredClaims = new WeakMap<Request, () => Promise<void>>();

/**
 * For a route that reads its own multipart body (the upload): call once the checks that need no body have passed. A
 * request with an Idempotency-Key claims it here, reading the body for its fingerprint, so a refusal found before the
 * body (a full or locked verification) costs no read even with a key. Without a key, or with one claimed already,
 * it does nothing.
 */
export async function claimBeforeReadingBody(request: Request): Promise<void> {
  await deferredClaims.get(request)?.();
}

/**
 * The middleware, for one audience: `scopeOf` names the scope of the request's credential (it runs after the guard).
 * Without the header, the request runs as it would have. With it, the key is claimed before the route runs; for a
 * multipart body to a route that reads it itself (readsOwnMultipartBody), which checks what it can before reading it,
 * when the route asks (claimBeforeReadingBody), unless the key is known already: then it is answered from at once
 * (replayed, 409 or 422).
 */
export function idempotency<E extends AppEnv & Env>(scopeOf: (c: Context<E>) => string): MiddlewareHandler<E> {
  return async (c, next) => {
    const key = c.req.header(IDEMPOTENCY_KEY_HEADER);
    if (key === undefined || !IDEMPOTENT_METHODS.has(c.req.method)) return next();
    if (!IDEMPOTENCY_KEY_PATTERN.test(key)) {
      throw validationError([
        { location: "header", pointer: IDEMPOTENCY_KEY_HEADER, message: "must be 1-255 visible ASCII characters" },
      ]);
    }
    const scope = scopeOf(c);
    const keyHash = await sha256Hex(key);
    let held: Claim | undefined;
    /** Claims the key, or throws the answer it already has (replayed, 409 in flight, 422 for another request). */
    const claimKey = async () => {
      const claim: Claim = {
        scope,
        keyHash,
        fingerprint: await fingerprintOf(c.req.raw, c.req.path),
        claim: crypto.randomUUID(),
      };
      const holder = await claimOrGiveUp(c.var.db, claim, c.var.now);
      if (holder.claim === claim.claim) {
        held = claim;
        return;
      }
      if (holder.fingerprint !== claim.fingerprint) {
        throw new Problem("idempotency_key_reused", "This Idempotency-Key was used with a different request; use a new key");
      }
      if (holder.status === null || holder.response === null) throw inUse(holder, c.var.now);
      const sealed = await sealedAnswer(c.env.DOCUMENTS, holder);
      const answer = replay(holder, JSON.parse(await unseal(sealed, await answerKey(key, scope))));
      throw new HTTPException(answer.status as ContentfulStatusCode, { res: answer });
    };
    if (
      isMultipart(c.req.raw) &&
      routeReadsOwnMultipart(c) &&
      !(await isIdempotencyKeyTaken(c.var.db, scope, keyHash, c.var.now))
    ) {
      deferredClaims.set(c.req.raw, claimKey);
    } else {
      await claimKey();
    }

    await next();
    // Not claimed: the route refused before it read the body, and nothing ran.
    if (!held) return;
    const claim = held;
    const { status } = c.res;
    try {
      if (!isStoredAnswer(status)) {
        await releaseIdempotencyKey(c.var.db, claim);
        return;
      }
      const answer: StoredAnswer = {
        requestId: c.var.requestId,
        body: await c.res.clone().text(),
        headers: Object.fromEntries(
          STORED_HEADERS.flatMap((name) => {
            const value = c.res.headers.get(name);
            return value === null ? [] : [[name, value]];
          }),
        ),
      };
      const sealed = await seal(JSON.stringify(answer), await answerKey(key, scope));
      await recordIdempotentResponse(c.var.db, claim, status, await keptAnswer(c.env.DOCUMENTS, claim, sealed));
    } catch (error) {
      // The answer stands. The key stays claimed, so retries answer 409 until it expires: never run twice.
      logRecordFailure(c.var.requestId, isStoredAnswer(status) ? "record" : "release", error);
    }
  };
}
