// The Worker's bindings and the per-request variables that middleware hands to handlers.
import type { Database } from "./db/client.ts";
import type { RequestSession } from "./db/session.ts";

export type Bindings = Env & {
  /** Bearer token of the operator's admin API; a Worker secret (`.dev.vars` locally). */
  ADMIN_TOKEN?: string;
};

/** The account behind the API key of the current request. */
export interface Principal {
  customerId: string;
  customerSlug: string;
  apiKeyId: string;
}

export interface AppEnv {
  Bindings: Bindings;
  Variables: {
    db: Database;
    /** The request's D1 session behind `db`: its usage, its bookmark, and statements it can carry. */
    session: RequestSession;
    requestId: string;
    principal: Principal;
    /** Set by the error handler for an unexpected error, so the request log line carries it. */
    failure: string | undefined;
  };
}
