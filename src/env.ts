// The Worker's bindings, and per audience the variables its middleware hands to handlers.
import type { Database } from "./db/client.ts";
import type { UserRow } from "./db/schema.ts";
import type { RequestSession } from "./db/session.ts";
import type { Outbox } from "./webhooks/outbox.ts";

/**
 * The bindings, as `wrangler types` generates them from wrangler.toml (ADMIN_TOKEN is a required secret there), except
 * that the variables are any string (wrangler types each as the literal it has there, empty, but each deployment sets
 * them) and the delivery queue carries delivery ids.
 */
export type Bindings = Omit<Env, "PUBLIC_BASE_URL" | "WEBHOOK_ALLOW_INSECURE_URLS" | "WEBHOOK_DELIVERIES"> & {
  PUBLIC_BASE_URL: string;
  WEBHOOK_ALLOW_INSECURE_URLS: string;
  WEBHOOK_DELIVERIES: Queue<string>;
};

/**
 * What a use case works with, whichever front end asks: the request's database (its D1 session) and outbox, the
 * document store, and the time the action happens at.
 */
export interface Work {
  db: Database;
  outbox: Outbox;
  documents: R2Bucket;
  now: number;
}

/** What the request's one log line says about who made it, filled in by the guard that finds out. */
interface RequestLog {
  customerId: string | null;
}

/** What every request has, whatever its audience: the public routes see only this. */
export interface AppEnv {
  Bindings: Bindings;
  Variables: {
    db: Database;
    /** The request's D1 session behind `db`: its usage, its bookmark, and statements it can carry. */
    session: RequestSession;
    requestId: string;
    log: RequestLog;
    /** The webhook deliveries this request's writes created: put on the queue once it is answered. */
    outbox: Outbox;
  };
}

/** The account behind the API key of the current request. */
export interface Principal {
  customerId: string;
  customerSlug: string;
  apiKeyId: string;
}

/** Routes of the customer API (an API key): the key's account is known. */
export interface CustomerEnv extends AppEnv {
  Variables: AppEnv["Variables"] & { principal: Principal };
}

/** Who is signed in to the portal, from the session cookie. */
export interface PortalVisitor {
  user: UserRow;
  customer: { id: string; slug: string; name: string };
  /** The session's CSRF token: every form of the session's pages carries it. */
  csrfToken: string;
}

/** Pages of the portal (a session cookie): the visitor is known. */
export interface PortalEnv extends AppEnv {
  Variables: AppEnv["Variables"] & { visitor: PortalVisitor };
}

/** Routes of the operator (ADMIN_TOKEN): nothing more is known than on a public route, only that the operator asked. */
export type OperatorEnv = AppEnv;
