// The console's numbers across accounts: search and filters, and the moves (suspend, resume, release, restore) of the
// numbers ticked on a page.
import type { Context } from "hono";
import { listOrderablePairs } from "../catalog/store.ts";
import { pageWindow } from "../db/paging.ts";
import { NUMBER_STATUSES } from "../db/schema.ts";
import type { ConsoleEnv } from "../env.ts";
import { pageMeta } from "../http/pagination.ts";
import { createRouter } from "../http/router.ts";
import { words } from "../lib/words.ts";
import { listNumbersOfAllAccounts } from "../numbers/admin-list.ts";
import { operatorNumbersQuery, toOperatorNumberQuery } from "../numbers/admin-list-routes.ts";
import type { NumberMove } from "../numbers/lifecycle.ts";
import { Badge, CsrfField, Pager, Table } from "../ui/components.tsx";
import { date, withQuery } from "../ui/format.ts";
import { PerPageField, TextInput } from "../ui/forms.tsx";
import { FilterForm, listFilters, PairFilterFields, type PairFilterProps, StatusFilterField } from "../ui/list-filters.tsx";
import { renderPage } from "../ui/renderer.tsx";
import { ACCOUNTS } from "./accounts-pages.tsx";
import { noticeOf, refusal } from "./admin-common.tsx";
import {
  MoveFields,
  type MoveFormState,
  MoveReportCard,
  moveRoute,
  movesAnyNumber,
  NUMBERS,
  numberHref,
  offeredMoves,
  takeMoveReport,
} from "./number-moves.tsx";

type C = Context<ConsoleEnv>;

const SECTION = "numbers";

function NumberFilters({ values, errors, pairs }: PairFilterProps) {
  return (
    <FilterForm action={NUMBERS} values={values}>
      <TextInput
        name="search"
        label="Phone number"
        value={values.search}
        error={errors.search}
        hint="Its start, e.g. +4420"
        inputmode="tel"
      />
      <TextInput name="customer_slug" label="Account" value={values.customer_slug} error={errors.customer_slug} hint="Its slug" />
      <StatusFilterField values={values} errors={errors} statuses={NUMBER_STATUSES} />
      <PairFilterFields values={values} errors={errors} pairs={pairs} />
      <PerPageField values={values} errors={errors} />
    </FilterForm>
  );
}

async function numbersPage(c: C, state: MoveFormState = {}, status = 200) {
  const page = { title: "Numbers", section: SECTION };
  const pairs = await listOrderablePairs(c.var.db);
  const filters = listFilters(c, operatorNumbersQuery, page, (props) => <NumberFilters {...props} pairs={pairs} />);
  if ("answer" in filters) return filters.answer;
  const { raw, query } = filters;
  const window = pageWindow(query.page, query.limit);
  const { rows, total } = await listNumbersOfAllAccounts(c.var.db, toOperatorNumberQuery(query), window);
  const meta = pageMeta(window, total);
  const report = status === 200 ? await takeMoveReport(c) : undefined;
  const moves = offeredMoves(
    c,
    rows.map((row) => row.number),
  );
  const ticks = movesAnyNumber(c) && moves.length > 0;
  const chosen = new Set(state.chosen);
  const actionOf = (move: NumberMove) => `${NUMBERS}/${move}${withQuery(raw, {})}`;
  const table = (
    <Table
      label="Numbers"
      rows={rows}
      columns={[
        ...(ticks
          ? [
              {
                label: "Choose",
                cell: (row: (typeof rows)[number]) => (
                  <input
                    type="checkbox"
                    name="number_ids"
                    value={row.number.id}
                    checked={chosen.has(row.number.id)}
                    aria-label={`Choose ${row.number.phoneNumber}`}
                  />
                ),
              },
            ]
          : []),
        { label: "Number", cell: (row) => <a href={numberHref(row.number.id)}>{row.number.phoneNumber}</a> },
        { label: "Account", cell: (row) => <a href={`${ACCOUNTS}/${row.customerSlug}`}>{row.customerSlug}</a> },
        { label: "Pair", cell: (row) => `${row.number.countryCode} ${words(row.number.numberType)}` },
        { label: "Status", cell: (row) => <Badge status={row.number.status} /> },
        {
          label: "Since",
          cell: (row) =>
            row.number.status === "released" && row.number.restorableUntil !== null
              ? `restorable until ${date(row.number.restorableUntil)}`
              : date(row.number.suspendedAt ?? row.number.createdAt),
        },
      ]}
    />
  );
  return renderPage(
    c,
    page,
    <>
      <h1>Numbers</h1>
      <p class="muted">Every account's numbers, newest first.</p>
      {noticeOf(c, {}, state.problem ? refusal(state.problem) : undefined)}
      {report ? <MoveReportCard report={report} /> : null}
      <NumberFilters values={raw} errors={{}} pairs={pairs} />
      {rows.length === 0 ? (
        <div class="card empty">
          <p>No numbers match.</p>
        </div>
      ) : ticks ? (
        <form method="post" action={actionOf(moves[0]!)} class="stack" aria-label="Change the chosen numbers">
          <CsrfField token={c.var.csrfToken} />
          {table}
          <fieldset class="card">
            <legend>Change the chosen numbers</legend>
            <MoveFields c={c} moves={moves} actionOf={actionOf} state={state} />
          </fieldset>
        </form>
      ) : (
        table
      )}
      <Pager meta={meta} noun="number" hrefOf={(n) => `${NUMBERS}${withQuery(raw, { page: String(n) })}`} />
    </>,
    status,
  );
}

/** Back to the list as it was, filters and page kept. */
function listBack(c: C): string {
  const search = new URL(c.req.url).search;
  return `${NUMBERS}${search}`;
}

function listMove(move: NumberMove) {
  return moveRoute(move, {
    back: listBack,
    idsOf: (_c, posted) => posted,
    refusedPage: (c, state, status) => numbersPage(c, state, status),
  });
}

/** The numbers list and its moves, mounted under /ops. */
export const numbersPages = createRouter<ConsoleEnv>()
  .get("/numbers", (c) => numbersPage(c))
  .post("/numbers/suspend", ...listMove("suspend"))
  .post("/numbers/resume", ...listMove("resume"))
  .post("/numbers/release", ...listMove("release"))
  .post("/numbers/restore", ...listMove("restore"));
