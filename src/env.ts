// The Worker's bindings and each audience's context variables.
import type { Actor, AuditContext } from "./db/audit.ts";
import type { Database } from "./db/client.ts";
import type { Outbox } from "./db/outbox.ts";
import type { StaffRole, UserRow } from "./db/schema.ts";
import type { RequestSession } from "./db/session.ts";

/**
 * The bindings, as `wrangler types` generates them from wrangler.toml (ADMIN_TOKEN is a required secret there), except
 * that the variables are any string (wrangler types each as the literal it has there, empty, but each deployment sets
 * them) and the delivery queue carries delivery ids.
 */
export type Bindings = Omit<
  Env,
  | "PUBLIC_BASE_URL"
  | "WEBHOOK_ALLOW_INSECURE_URLS"
  | "ACCESS_TEAM_DOMAIN"
  | "ACCESS_AUD"
  | "ACCESS_JWKS"
  | "PASSWORD_SCRYPT_LOG_N"
  | "WEBHOOK_DELIVERIES"
> & {
  PUBLIC_BASE_URL: string;
  WEBHOOK_ALLOW_INSECURE_URLS: string;
  ACCESS_TEAM_DOMAIN: string;
  ACCESS_AUD: string;
  ACCESS_JWKS: string;
  PASSWORD_SCRYPT_LOG_N: string;
  WEBHOOK_DELIVERIES: Queue<string>;
};

/**
/** What a deployment's variables let its use cases do beyond the contract's rules (local development and tests). */
export interface Deployment {
  /** WEBHOOK_ALLOW_INSECURE_URLS: webhook endpoints may use http:// and loopback hosts. */
  allowsInsecureWebhookUrls: boolean;
}

export function deploymentOf(env: Pick<Bindings, "WEBHOOK_ALLOW_INSECURE_URLS">): Deployment {
  return { allowsInsecureWebhookUrls: env.WEBHOOK_ALLOW_INSECURE_URLS === "true" };
}

/**
 * What a use case works with, whichever front end asks: the request's database (its D1 session) and outbox, the
 * document store, the time the action happens at, who acts in which request (for the audit log), and the deployment.
 */
export interface Work extends AuditContext {
  db: Database;
  outbox: Outbox;
  documents: R2Bucket;
  now: number;
  deployment: Deployment;
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
    /** The request's time (ms): the only clock its rules, use cases (Work.now) and guards read. */
    now: number;
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
  Variables: AppEnv["Variables"] & { principal: Principal; actor: Actor };
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
  Variables: AppEnv["Variables"] & { visitor: PortalVisitor; actor: Actor };
}

/** Who acts for the operator: a staff member with their role, or the ADMIN_TOKEN (automation), whose role is admin. */
export interface Operator {
  actor: { type: "staff"; email: string } | { type: "token" };
  role: StaffRole;
  /** A staff member's name; "ADMIN_TOKEN" for the token. */
  name: string;
  /** The Cloudflare Access token the staff member came with: the console's session secret (its CSRF token's key). */
  accessToken?: string;
}

/** Routes of the operator (/admin) and the console's pages (/ops): who acts is known, and their role. */
export interface OperatorEnv extends AppEnv {
  Variables: AppEnv["Variables"] & { operator: Operator; actor: Actor };
}

/** The console's pages: a staff member signed in by Access, and the CSRF token every form of theirs carries. */
export interface ConsoleEnv extends OperatorEnv {
  Variables: OperatorEnv["Variables"] & { csrfToken: string };
}
