// The console's page of one number of any account: the number, its account, order and verification, its history (its
// newest audit events) and the moves it allows now.
import type { Context } from "hono";
import { auditNames } from "../audit/names.ts";
import { toAuditEvent } from "../audit/schemas.ts";
import { listAuditEvents } from "../audit/store.ts";
import { AuditLog } from "../audit/views.tsx";
import { pageWindow } from "../db/paging.ts";
import type { ConsoleEnv } from "../env.ts";
import { prefixedId } from "../http/fields.ts";
import { createRouter } from "../http/router.ts";
import { withPrefix } from "../lib/ids.ts";
import { capitalised, words } from "../lib/words.ts";
import { findNumberForOperator } from "../numbers/admin-list.ts";
import type { NumberMove } from "../numbers/lifecycle.ts";
import { formatOrderNumber } from "../orders/schemas.ts";
import { Badge, CsrfField } from "../ui/components.tsx";
import { notFoundPage } from "../ui/error-page.tsx";
import { dateTime } from "../ui/format.ts";
import { renderPage } from "../ui/renderer.tsx";
import { ACCOUNTS } from "./accounts-pages.tsx";
import { noticeOf, refusal } from "./admin-common.tsx";
import { consoleHref } from "./audit-pages.tsx";
import {
  MoveFields,
  type MoveFormState,
  MoveReportCard,
  moveRoute,
  NUMBERS,
  numberHref,
  offeredMoves,
  takeMoveReport,
} from "./number-moves.tsx";

type C = Context<ConsoleEnv>;

const SECTION = "numbers";
/** The page shows the number's newest audit events, this many (as GET /admin/numbers/{id}). */
const HISTORY = pageWindow(1, 50);

const numberIdParam = prefixedId("num");

/** The path's number id (bare); undefined when it is no number id. */
function pathNumberId(c: C): string | undefined {
  const parsed = numberIdParam.safeParse(c.req.param("number_id"));
  return parsed.success ? parsed.data : undefined;
}

function numberNotFound(c: C) {
  return notFoundPage(c, { what: "Number", section: SECTION, back: { href: NUMBERS, label: "Back to the numbers" } });
}

/** A fact that may be absent: a dash for none. */
const orDash = (value: string | null) => value ?? "—";

async function numberPage(c: C, numberId: string, state: MoveFormState = {}, status = 200) {
  const found = await findNumberForOperator(c.var.db, numberId);
  if (!found) return numberNotFound(c);
  const { row, order, verification } = found;
  const number = row.number;
  const history = await listAuditEvents(c.var.db, { targetType: "number", targetId: withPrefix("num", number.id) }, HISTORY);
  const names = await auditNames(c.var.db, history.rows);
  const report = status === 200 ? await takeMoveReport(c) : undefined;
  const moves = offeredMoves(c, [number]);
  const href = numberHref(number.id);
  const kyc = verification?.attachment
    ? { href: `/ops/reviews/profiles/${withPrefix("kyp", verification.attachment.profileId)}`, label: "its profile's" }
    : verification && { href: `/ops/reviews/kyc/${withPrefix("kyc", verification.verification.id)}`, label: "its own" };
  return renderPage(
    c,
    { title: `Number ${number.phoneNumber}`, section: SECTION },
    <>
      <p>
        <a href={NUMBERS}>← Numbers</a>
      </p>
      <h1>
        {number.phoneNumber} <Badge status={number.status} />
      </h1>
      {noticeOf(c, {}, state.problem ? refusal(state.problem) : undefined)}
      {report ? <MoveReportCard report={report} /> : null}
      <dl class="facts card">
        <dt>Account</dt>
        <dd>
          <a href={`${ACCOUNTS}/${row.customerSlug}`}>{row.customerSlug}</a>
        </dd>
        <dt>Order</dt>
        <dd>
          <a href={`/ops/orders/${order.id}`}>{formatOrderNumber(order.orderSeq)}</a>
        </dd>
        <dt>Country and type</dt>
        <dd>
          {number.countryCode} {words(number.numberType)}
        </dd>
        <dt>Allocated</dt>
        <dd>{dateTime(number.createdAt)}</dd>
        <dt>Verification</dt>
        <dd>
          {verification && kyc ? (
            <>
              <a href={kyc.href}>{capitalised(verification.verification.status)}</a> ({kyc.label})
            </>
          ) : (
            "None"
          )}
        </dd>
        <dt>Suspended</dt>
        <dd>
          {number.suspendedAt === null ? "—" : `${dateTime(number.suspendedAt)} (${words(orDash(number.suspensionReason))})`}
        </dd>
        <dt>Released</dt>
        <dd>
          {number.releasedAt === null
            ? "—"
            : `${dateTime(number.releasedAt)} by the ${orDash(number.releaseReason)}; restorable until ${dateTime(number.restorableUntil)}`}
        </dd>
        <dt>Release protection</dt>
        <dd>{number.releaseProtected ? "Protected: the account cannot release it" : "None"}</dd>
        <dt>Tags</dt>
        <dd>{number.tags.length === 0 ? "—" : number.tags.join(", ")}</dd>
        <dt>Customer reference</dt>
        <dd>{orDash(number.customerReference)}</dd>
      </dl>
      {moves.length > 0 ? (
        <form method="post" action={`${href}/${moves[0]}`} class="card stack" aria-label="Change the number">
          <CsrfField token={c.var.csrfToken} />
          <h2>Change</h2>
          <MoveFields c={c} moves={moves} actionOf={(move) => `${href}/${move}`} state={state} />
        </form>
      ) : null}
      <h2>History</h2>
      {history.rows.length === 0 ? (
        <p class="muted">No changes recorded yet.</p>
      ) : (
        <AuditLog label="History" events={history.rows.map((event) => toAuditEvent(event))} names={names} hrefOf={consoleHref} />
      )}
      {history.total > HISTORY.limit ? (
        <p>
          <a href={`/ops/audit?target_type=number&target_id=${withPrefix("num", number.id)}`}>The whole history</a>
        </p>
      ) : null}
    </>,
    status,
  );
}

function oneNumberMove(move: NumberMove) {
  return moveRoute(move, {
    back: (c) => numberHref(c.req.param("number_id") ?? ""),
    // The page's own number: a malformed id moves nothing (the action reports it not found).
    idsOf: (c) => [pathNumberId(c) ?? c.req.param("number_id") ?? ""],
    refusedPage: (c, state, status) => {
      const id = pathNumberId(c);
      return id === undefined ? numberNotFound(c) : numberPage(c, id, state, status);
    },
  });
}

/** One number's page and its moves, mounted under /ops. */
export const anyNumberPages = createRouter<ConsoleEnv>()
  .get("/numbers/:number_id", (c) => {
    const id = pathNumberId(c);
    return id === undefined ? numberNotFound(c) : numberPage(c, id);
  })
  .post("/numbers/:number_id/suspend", ...oneNumberMove("suspend"))
  .post("/numbers/:number_id/resume", ...oneNumberMove("resume"))
  .post("/numbers/:number_id/release", ...oneNumberMove("release"))
  .post("/numbers/:number_id/restore", ...oneNumberMove("restore"));
