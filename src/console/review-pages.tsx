import { listOrderablePairs } from "../catalog/store.ts";
import { KYC_TYPE_WORDS } from "../compliance/types.ts";
import { pageWindow } from "../db/paging.ts";
import { KYC_STATUSES } from "../db/schema.ts";
import type { ConsoleEnv } from "../env.ts";
import { pageMeta } from "../http/pagination.ts";
import { createRouter } from "../http/router.ts";
import { AWAITING_STATUSES, listReviewQueue, type QueuedVerification, SUBJECT_TYPES } from "../kyc/queue.ts";
import { reviewQueueQuery, toReviewQueueQuery } from "../kyc/schemas.ts";
import type { SubjectKind } from "../kyc/store.ts";
import { withPrefix } from "../lib/ids.ts";
import { capitalised, words } from "../lib/words.ts";
import { Badge, Pager, StatusTabs, Table } from "../ui/components.tsx";
import { dateTime, withQuery } from "../ui/format.ts";
import { PerPageField, Select, TextInput } from "../ui/forms.tsx";
import { FilterForm, listFilters, PairFilterFields, type PairFilterProps, StatusFilterField } from "../ui/list-filters.tsx";
import { renderPage } from "../ui/renderer.tsx";

export const REVIEWS = "/ops/reviews";
export const SECTION = "reviews";

/** A verification's page: a number's under /kyc, a profile's under /profiles. */
export function hrefOf(kind: SubjectKind, id: string): string {
  return kind === "number" ? `${REVIEWS}/kyc/${withPrefix("kyc", id)}` : `${REVIEWS}/profiles/${withPrefix("kyp", id)}`;
}

function ReviewFilters({ values, errors, pairs }: PairFilterProps) {
  return (
    <FilterForm action={REVIEWS} values={values}>
      <StatusFilterField values={values} errors={errors} statuses={KYC_STATUSES} none="Awaiting review" />
      <Select
        name="subject_type"
        label="Subject"
        value={values.subject_type}
        blank="Numbers and profiles"
        options={SUBJECT_TYPES.map((type) => [type, capitalised(type)] as const)}
        error={errors.subject_type}
      />
      <TextInput
        name="customer_slug"
        label="Account"
        value={values.customer_slug}
        error={errors.customer_slug}
        hint="The account's slug"
      />
      <PairFilterFields values={values} errors={errors} pairs={pairs} />
      <PerPageField values={values} errors={errors} />
    </FilterForm>
  );
}

/** A queued verification's subject, linked to its page: the number's phone number, or the profile's name. */
function SubjectLink({ row }: { row: QueuedVerification }) {
  const { verification, number } = row;
  return number ? (
    <a href={hrefOf("number", verification.id)}>{number.phoneNumber}</a>
  ) : (
    <a href={hrefOf("profile", verification.id)}>{verification.name ?? withPrefix("kyp", verification.id)}</a>
  );
}
/** The review queue, mounted under /ops. */
export const reviewPages = createRouter<ConsoleEnv>().get("/reviews", async (c) => {
  const page = { title: "Reviews", section: SECTION };
  const pairs = await listOrderablePairs(c.var.db);
  const filters = listFilters(c, reviewQueueQuery, page, (props) => <ReviewFilters {...props} pairs={pairs} />);
  if ("answer" in filters) return filters.answer;
  const { raw, query } = filters;
  const window = pageWindow(query.page, query.limit);
  const { rows, total, statusCounts } = await listReviewQueue(c.var.db, toReviewQueueQuery(query), window);
  const meta = pageMeta(window, total);
  return renderPage(
    c,
    page,
    <>
      <h1>Reviews</h1>
      <p class="muted">Verifications and profiles awaiting staff, the oldest submission first.</p>
      <StatusTabs
        path={REVIEWS}
        query={raw}
        statuses={KYC_STATUSES}
        counts={statusCounts}
        filtered={query.status}
        unfiltered={{ label: "Awaiting review", statuses: AWAITING_STATUSES }}
      />
      <ReviewFilters values={raw} errors={{}} pairs={pairs} />
      {rows.length === 0 ? (
        <div class="card empty">
          <p>Nothing matches: no verification awaits review here.</p>
        </div>
      ) : (
        <Table
          label="Reviews"
          rows={rows}
          columns={[
            { label: "Subject", cell: (row) => <SubjectLink row={row} /> },
            {
              label: "What",
              cell: (row) => (row.number ? `${row.number.countryCode} ${words(row.number.numberType)} number` : "Profile"),
            },
            { label: "Account", cell: (row) => row.customerSlug },
            { label: "For", cell: (row) => KYC_TYPE_WORDS[row.verification.type] },
            { label: "Documents", cell: (row) => row.documents.length },
            { label: "Status", cell: (row) => <Badge status={row.verification.status} /> },
            { label: "Submitted", cell: (row) => dateTime(row.verification.submittedAt) },
          ]}
        />
      )}
      <Pager meta={meta} noun="verification" hrefOf={(n) => `${REVIEWS}${withQuery(raw, { page: String(n) })}`} />
    </>,
  );
});
