// The portal's forms of a number's life: release (after its preview), restore and tags of the numbers selected in the
// list (or of one number, from its page), a number's tags, reference and protection, and the list's CSV export.
// Each runs the API's use case on a body parsed by the API's schema, so the rules and their words are the API's.
import type { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { PortalEnv } from "../env.ts";
import { workOf } from "../http/request-context.ts";
import { createRouter } from "../http/router.ts";
import { valueOrProblem } from "../lib/problem.ts";
import { DAY_MS } from "../lib/time.ts";
import { tagNumbersBody, updateNumberBody } from "../numbers/details-schemas.ts";
import { tagNumbersAction, updateNumberAction } from "../numbers/details-use-cases.ts";
import { exportFilename, exportNumbers } from "../numbers/export.ts";
import { releaseNumbersBody, restoreNumbersBody, toMoveReport } from "../numbers/life-schemas.ts";
import { releaseNumbersAction, restoreNumbersAction } from "../numbers/life-use-cases.ts";
import { RESTORE_WINDOW_MS } from "../numbers/lifecycle.ts";
import { exportNumbersQuery, toNumberListQuery } from "../numbers/schemas.ts";
import { numbersAfter } from "../numbers/store.ts";
import { CsrfField, Notice, Table } from "../ui/components.tsx";
import { plural } from "../ui/format.ts";
import { fieldMessages, readForm } from "../ui/forms.tsx";
import { renderPage } from "../ui/renderer.tsx";
import { numberPage, visitorsNumber } from "./number-kyc-pages.tsx";
import { EffectWords, MAX_SELECTED, outcomeWords, redirectWithMoveReport, typedTags } from "./number-life-parts.tsx";
import { type ListAction, numbersPage } from "./numbers-pages.tsx";

/** The list's filters as the form's address carries them (the list posts to itself with its query). */
function listQueryOf(c: Context): string {
  return new URL(c.req.url).search;
}

type Selected = { ids: string[] } | { error: string };

/**
 * The numbers a list form acts on: those checked, or (scope "matching") every number the list's filters match, read
 * here, at most MAX_SELECTED.
 */
async function selectedNumbers(c: Context<PortalEnv>, scope: string | undefined, checked: string[]): Promise<Selected> {
  if (scope !== "matching") return { ids: checked };
  const query = exportNumbersQuery.safeParse(Object.fromEntries(new URL(c.req.url).searchParams));
  if (!query.success) return { error: "cannot be chosen by filters that cannot be used: correct the filters first" };
  const rows = await numbersAfter(
    c.var.db,
    c.var.visitor.customer.id,
    toNumberListQuery(query.data),
    undefined,
    MAX_SELECTED + 1,
  );
  if (rows.length > MAX_SELECTED) {
    return {
      error: `are too many: the filter matches more than ${MAX_SELECTED.toLocaleString("en-US")} numbers; narrow it, or check the numbers one by one`,
    };
  }
  return { ids: rows.map((row) => row.number.id) };
}

/** A list form's body as the API takes it, or each error by the form's field. */
type ParsedBody<T> = { data: T } | { errors: Record<string, string> };

/** A safeParse's outcome as ParsedBody, each error under its field. */
function parsedBody<T>(parsed: z.ZodSafeParseResult<T>): ParsedBody<T> {
  return parsed.success ? { data: parsed.data } : { errors: fieldMessages(parsed.error.issues) };
}

/** The list form's numbers and fields parsed into the API's body by `body`; the list with the errors otherwise. */
async function listSelection<T>(
  c: Context<PortalEnv>,
  action: ListAction,
  body: (ids: string[], form: Record<string, string>) => ParsedBody<T>,
): Promise<{ answer: Response } | { body: T }> {
  const form = await readForm(c);
  const checked = form.list("number_ids");
  const selected = await selectedNumbers(c, form.fields.scope, checked);
  const parsed = "error" in selected ? { errors: { number_ids: selected.error } } : body(selected.ids, form.fields);
  if ("errors" in parsed)
    return { answer: await numbersPage(c, { form: action, values: form.fields, checked, errors: parsed.errors }) };
  return { body: parsed.data };
}

/**
 * The release preview: the dry run's outcome and effects for each number, and a Confirm that posts the same numbers to
 * `confirm` (the real release judges them again).
 */
async function releasePreview(c: Context<PortalEnv>, numberIds: string[], confirm: string, back: string) {
  const work = workOf(c);
  const report = toMoveReport(
    valueOrProblem(await releaseNumbersAction.run(work, c.var.visitor.customer.id, { numberIds }, true)),
    "released",
  );
  return renderPage(
    c,
    { title: "Release numbers", section: "numbers" },
    <>
      <p>
        <a href={back}>← Back</a>
      </p>
      <h1>Release {plural(report.results.length, "number")}?</h1>
      <p>
        A released number stays yours to restore for {plural(RESTORE_WINDOW_MS / DAY_MS, "day")} (its restore deadline); after
        that it goes back to stock and cannot be restored. Nothing has changed yet.
      </p>
      <Table
        label="What the release does"
        rows={report.results}
        columns={[
          {
            label: "Number",
            cell: (r) =>
              r.phone_number ? <a href={`/portal/numbers/${r.number_id}`}>{r.phone_number}</a> : <code>{r.number_id}</code>,
          },
          { label: "Outcome", cell: (r) => outcomeWords(r.outcome) },
          {
            label: "Effects",
            cell: (r) =>
              r.effects.length === 0 ? (
                <span class="muted">none</span>
              ) : (
                <ul>
                  {r.effects.map((effect) => (
                    <li>
                      <EffectWords effect={effect} />
                    </li>
                  ))}
                </ul>
              ),
          },
        ]}
      />
      {report.released > 0 ? (
        <form method="post" action={confirm} class="card actions">
          <CsrfField token={c.var.visitor.csrfToken} />
          {report.results
            .filter((r) => r.outcome === "would_release")
            .map((r) => (
              <input type="hidden" name="number_ids" value={r.number_id} />
            ))}
          <button type="submit" class="danger">
            Confirm: release {plural(report.released, "number")}
          </button>
          <a href={back}>Cancel</a>
        </form>
      ) : (
        <Notice kind="error">None of these numbers can be released: nothing to confirm.</Notice>
      )}
    </>,
  );
}

const numbersHref = (c: Context) => `/portal/numbers${listQueryOf(c)}`;

/** A number's page when the path names one of the account's numbers; its not-found page otherwise. */
async function withNumber(c: Context<PortalEnv>, then: (numberId: string) => Promise<Response>) {
  const number = await visitorsNumber(c);
  return number ? then(number.id) : numberPage.notFound(c);
}

async function release(c: Context<PortalEnv>, numberIds: string[], href: string) {
  const report = valueOrProblem(await releaseNumbersAction.run(workOf(c), c.var.visitor.customer.id, { numberIds }, false));
  return redirectWithMoveReport(c, href, "Release report", toMoveReport(report, "released").results);
}

async function restore(c: Context<PortalEnv>, numberIds: string[], href: string) {
  const report = valueOrProblem(await restoreNumbersAction.run(workOf(c), c.var.visitor.customer.id, numberIds));
  return redirectWithMoveReport(c, href, "Restore report", toMoveReport(report, "restored").results);
}

const releaseBody = (ids: string[]) => parsedBody(releaseNumbersBody.safeParse({ number_ids: ids }));
const restoreBody = (ids: string[]) => parsedBody(restoreNumbersBody.safeParse({ number_ids: ids }));

/** The tag form's body: its one field of tags added or removed, by the button that sent it. */
function tagBody(ids: string[], form: Record<string, string>) {
  const tags = typedTags(form.tags);
  const parsed = parsedBody(
    tagNumbersBody.safeParse({ number_ids: ids, [form.tag_change === "remove" ? "remove" : "add"]: tags }),
  );
  if ("data" in parsed) return parsed;
  const { number_ids, add, remove, "": whole } = parsed.errors;
  const tagError = add ?? remove ?? whole;
  return { errors: { ...(number_ids ? { number_ids } : {}), ...(tagError ? { tags: tagError } : {}) } };
}

/** The posted settings as the API's PATCH takes them: every field of the form, a blank reference clearing it. */
function settingsBody(form: Record<string, string>) {
  const reference = (form.customer_reference ?? "").trim();
  return updateNumberBody.safeParse({
    tags: typedTags(form.tags),
    customer_reference: reference === "" ? null : reference,
    release_protected: form.release_protected === "on",
  });
}

/** The list's release, restore and tag forms, a number's own, and the export, mounted under /portal. */
export const numberLifePages = createRouter<PortalEnv>()
  .get("/numbers/export", async (c) => {
    const query = exportNumbersQuery.safeParse(c.req.query());
    // The list shows what is wrong with its filters, beside each.
    if (!query.success) return c.redirect(`/portal/numbers${listQueryOf(c)}`, 303);
    const work = workOf(c);
    const { customer } = c.var.visitor;
    const csv = valueOrProblem(await exportNumbers(work, customer.id, toNumberListQuery(query.data)));
    return c.body(csv, 200, {
      "Content-Type": "text/csv; charset=utf-8",
      "Content-Disposition": `attachment; filename="${exportFilename(customer.slug, work.now)}"`,
    });
  })
  .post("/numbers/release/preview", async (c) => {
    const selection = await listSelection(c, "release", releaseBody);
    if ("answer" in selection) return selection.answer;
    const ids = selection.body.number_ids ?? [];
    return releasePreview(c, ids, `/portal/numbers/release${listQueryOf(c)}`, numbersHref(c));
  })
  .post("/numbers/release", async (c) => {
    const selection = await listSelection(c, "release", releaseBody);
    if ("answer" in selection) return selection.answer;
    return release(c, selection.body.number_ids ?? [], numbersHref(c));
  })
  .post("/numbers/restore", async (c) => {
    const selection = await listSelection(c, "restore", restoreBody);
    if ("answer" in selection) return selection.answer;
    return restore(c, selection.body.number_ids, numbersHref(c));
  })
  .post("/numbers/tags", async (c) => {
    const selection = await listSelection(c, "tags", tagBody);
    if ("answer" in selection) return selection.answer;
    const { number_ids, add = [], remove = [] } = selection.body;
    const report = valueOrProblem(await tagNumbersAction.run(workOf(c), c.var.visitor.customer.id, number_ids, { add, remove }));
    const results = report.results.map((r) => ({ number_id: r.numberId, phone_number: r.phoneNumber, outcome: r.outcome }));
    return redirectWithMoveReport(c, numbersHref(c), "Tags report", results);
  })
  .post("/numbers/:number_id/release/preview", (c) =>
    withNumber(c, (id) => releasePreview(c, [id], `/portal/numbers/${id}/release`, `/portal/numbers/${id}`)),
  )
  .post("/numbers/:number_id/release", (c) => withNumber(c, (id) => release(c, [id], `/portal/numbers/${id}`)))
  .post("/numbers/:number_id/restore", (c) => withNumber(c, (id) => restore(c, [id], `/portal/numbers/${id}`)))
  .post("/numbers/:number_id/settings", async (c) => {
    const number = await visitorsNumber(c);
    if (!number) return numberPage.notFound(c);
    const form = (await readForm(c)).fields;
    const parsed = settingsBody(form);
    if (!parsed.success)
      return numberPage.render(c, number, { settings: { values: form, errors: fieldMessages(parsed.error.issues) } }, 400);
    const { tags, customer_reference, release_protected } = parsed.data;
    const updated = await updateNumberAction.run(workOf(c), c.var.visitor.customer.id, number.id, {
      tags,
      customerReference: customer_reference,
      releaseProtected: release_protected,
    });
    if (!updated.ok) return numberPage.problem(c, number, updated.problem);
    return c.redirect(`/portal/numbers/${number.id}?done=details`, 303);
  });
