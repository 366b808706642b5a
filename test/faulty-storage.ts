// Storage bindings that count their steps and fail the ones a test names, and the app called over them in this isolate:
// for showing that a multi-step write leaves nothing half-done whichever of its steps fails.
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { addressed, appInIsolate, ORIGIN } from "./helpers.ts";

/** The error an injected fault raises: a name and a message no answer may show. */
export class InjectedFault extends Error {
  override readonly name = "InjectedFault";
}

/**
 * Numbers storage steps (1, 2, …) as they happen and fails the ones in `failing`. A step is one call that reaches
 * storage: a D1 batch or statement run, an R2 put, get, head, delete or list.
 */
export class FaultPlan {
  /** Each step taken so far, as `describeSql` and the R2 and queue wrappers name them ("D1 insert orders", "R2 put"). */
  readonly steps: string[] = [];
  private readonly failing: ReadonlySet<number>;
  private answersLost = false;
  private interleaved: { before: RegExp; action: () => Promise<void> } | undefined;

  /** Fails these steps before they reach storage. */
  constructor(...failing: number[]) {
    this.failing = new Set(failing);
  }

  /** Lets these steps reach storage and then fails them, as when a write commits and its answer is lost on the way. */
  static losingAnswers(...steps: number[]): FaultPlan {
    const plan = new FaultPlan(...steps);
    plan.answersLost = true;
    return plan;
  }

  /**
   * Fails nothing, and runs `action` before each step whose name `before` matches: another request arriving between a
   * write's read and its batch.
   */
  static interleaving(before: RegExp, action: () => Promise<void>): FaultPlan {
    const plan = new FaultPlan();
    plan.interleaved = { before, action };
    return plan;
  }

  /** Records a step, then fails it if it is one to fail (as a rejected promise, as storage fails). */
  async take<T>(step: string, run: () => Promise<T>): Promise<T> {
    const at = this.steps.push(step);
    if (this.interleaved?.before.test(step)) await this.interleaved.action();
    if (!this.failing.has(at)) return run();
    if (this.answersLost) await run();
    throw new InjectedFault(`injected fault at step ${at}${this.answersLost ? " (after it ran)" : ""}: ${step}`);
  }
}

/** A statement as a step names it: its verb and the table it names first ("insert orders", "select api_keys"). */
function describeSql(sql: string): string {
  const write = /^\s*(insert into|update|delete from)\s+"?(\w+)"?/i.exec(sql);
  if (write) return `${write[1]!.split(" ")[0]!.toLowerCase()} ${write[2]}`;
  const read = /^\s*select\b[\s\S]*?\bfrom\s+"?(\w+)"?/i.exec(sql);
  if (read) return `select ${read[1]}`;
  return sql.trim().split(/\s+/).slice(0, 3).join(" ");
}

/** What the wrappers keep of a statement they prepared: the real statement (for the real batch) and its SQL. */
const preparedBy = new WeakMap<object, { statement: D1PreparedStatement; sql: string }>();

function faultyStatement(statement: D1PreparedStatement, sql: string, plan: FaultPlan): D1PreparedStatement {
  const step = `D1 ${describeSql(sql)}`;
  const wrapped = {
    bind: (...values: unknown[]) => faultyStatement(statement.bind(...values), sql, plan),
    first: (column?: string) => plan.take(step, () => (column === undefined ? statement.first() : statement.first(column))),
    run: () => plan.take(step, () => statement.run()),
    all: () => plan.take(step, () => statement.all()),
    raw: (options?: { columnNames?: boolean }) => plan.take(step, () => statement.raw(options as { columnNames: true })),
  };
  preparedBy.set(wrapped, { statement, sql });
  // The methods a D1PreparedStatement has, each counted; its type has overloads an object literal cannot spell.
  return wrapped as unknown as D1PreparedStatement;
}

/** One batch is one step, named by its statements in order ("D1 insert batch_assertions + insert orders"). */
function faultyBatch(
  run: (statements: D1PreparedStatement[]) => Promise<D1Result[]>,
  plan: FaultPlan,
): (statements: D1PreparedStatement[]) => Promise<D1Result[]> {
  return (statements) => {
    const real = statements.map((s) => preparedBy.get(s) ?? { statement: s, sql: "?" });
    return plan.take(`D1 ${real.map((s) => describeSql(s.sql)).join(" + ")}`, () => run(real.map((s) => s.statement)));
  };
}

export function faultyD1(db: D1Database, plan: FaultPlan): D1Database {
  const wrapped = {
    prepare: (sql: string) => faultyStatement(db.prepare(sql), sql, plan),
    batch: faultyBatch((statements) => db.batch(statements), plan),
    exec: (sql: string) => plan.take(`D1 ${describeSql(sql)}`, () => db.exec(sql)),
    withSession: (constraintOrBookmark?: string) => {
      const session = db.withSession(constraintOrBookmark);
      const faultySession = {
        prepare: (sql: string) => faultyStatement(session.prepare(sql), sql, plan),
        batch: faultyBatch((statements) => session.batch(statements), plan),
        getBookmark: () => session.getBookmark(),
      };
      return faultySession as unknown as D1DatabaseSession;
    },
  };
  // Everything the app calls on D1; a method left out would fail loudly rather than bypass the plan.
  return wrapped as unknown as D1Database;
}

function faultyBucket(bucket: R2Bucket, plan: FaultPlan): R2Bucket {
  const wrapped: Pick<R2Bucket, "put" | "get" | "head" | "delete" | "list"> = {
    put: (...args: Parameters<R2Bucket["put"]>) => plan.take("R2 put", () => bucket.put(...args)),
    // R2's get has overloads (with onlyIf it may answer without a body); the wrapper passes its arguments through.
    get: ((...args: Parameters<R2Bucket["get"]>) => plan.take("R2 get", () => bucket.get(...args))) as R2Bucket["get"],
    head: (key) => plan.take("R2 head", () => bucket.head(key)),
    delete: (keys) => plan.take("R2 delete", () => bucket.delete(keys)),
    list: (options) => plan.take("R2 list", () => bucket.list(options)),
  };
  // Everything the app calls on R2; a method left out would fail loudly rather than bypass the plan.
  return wrapped as R2Bucket;
}

function faultyQueue(queue: Queue<string>, plan: FaultPlan): Queue<string> {
  const wrapped: Pick<Queue<string>, "send" | "sendBatch"> = {
    send: (...args) => plan.take("Queue send", () => queue.send(...args)),
    sendBatch: (...args) => plan.take("Queue send", () => queue.sendBatch(...args)),
  };
  // Everything the app calls on a queue; a method left out would fail loudly rather than bypass the plan.
  return wrapped as Queue<string>;
}

/** The test's bindings with D1, R2 and the delivery queue going through the plan. */
function faultyEnv(plan: FaultPlan): Env {
  return {
    ...env,
    DB: faultyD1(env.DB, plan),
    DOCUMENTS: faultyBucket(env.DOCUMENTS, plan),
    WEBHOOK_DELIVERIES: faultyQueue(env.WEBHOOK_DELIVERIES, plan),
  };
}

/** What a request over faulty storage gave: the answer, and the failure of the work it left to waitUntil, if any. */
export interface FaultyCall {
  response: Response;
  background: unknown;
}

/**
 * A request handled by the app inside this isolate over the plan's storage. Unlike callInIsolate, a failure of the
 * work left to waitUntil (a best-effort write after the answer) is returned, not thrown, so the answer can be checked.
 */
export async function callOverFaults(plan: FaultPlan, path: string, init: RequestInit): Promise<FaultyCall> {
  const ctx = createExecutionContext();
  const response = await appInIsolate().fetch(addressed(`${ORIGIN}${path}`, init), faultyEnv(plan), ctx);
  const background = await waitOnExecutionContext(ctx).then(
    () => undefined,
    (error: unknown) => error,
  );
  return { response, background };
}
