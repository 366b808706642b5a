// A number's life in the portal: its card on the number's page (status, deadlines, tags, reference, protection and
// the moves its state allows), the release preview, and the report of a release, restore or tag change shown once
// after the redirect.
import type { Context } from "hono";
import type { NumberRow } from "../db/schema.ts";
import type { PortalEnv } from "../env.ts";
import { availableOn } from "../lib/action.ts";
import { words } from "../lib/words.ts";
import { updateNumberAction } from "../numbers/details-use-cases.ts";
import type { toMoveReport } from "../numbers/life-schemas.ts";
import { releaseNumbersAction, restoreNumbersAction } from "../numbers/life-use-cases.ts";
import { leaveAfterRedirect, takeAfterRedirect } from "../ui/after-redirect.ts";
import { Badge, CsrfField, FieldError, Time } from "../ui/components.tsx";
import { plural } from "../ui/format.ts";
import { TextInput } from "../ui/forms.tsx";
import { portalNote } from "./once-shown.ts";

/** The most numbers one list form acts on: what the API's bodies take. */
export const MAX_SELECTED = 1_000;

/** A form shown again: what was typed, and each field's error. */
export interface SettingsForm {
  values: Record<string, string>;
  errors: Record<string, string>;
}

/** What each per-number outcome of a release, restore or tag change means, and what to do about a refusal. */
const OUTCOME_WORDS: Record<string, string> = {
  released: "Released",
  would_release: "Will be released",
  restored: "Restored",
  updated: "Tags changed",
  unchanged: "Unchanged: its tags were already so",
  not_found: "Not found: no number of this account has this id",
  already_released: "Already released",
  release_protected: "Protected from release: turn its protection off on the number's page first",
  not_released: "Not released, so nothing to restore",
  restore_window_passed: "Its restore window has passed",
  released_by_operator: "Released by the operator: only the operator can restore it",
  number_released: "Released: restore it before changing its tags",
  too_many_tags: "Not changed: it would have more than 20 tags",
};

export const outcomeWords = (outcome: string) => OUTCOME_WORDS[outcome] ?? words(outcome);

type WireReport = ReturnType<typeof toMoveReport<string>>;
export type MoveEffectItem = WireReport["results"][number]["effects"][number];

/** What a release does (would do) beside changing the number's status. */
export function EffectWords({ effect }: { effect: MoveEffectItem }) {
  switch (effect.code) {
    case "detached_from_profile":
      return (
        <>
          Leaves the profile <a href={`/portal/profiles/${effect.profile_id}`}>{effect.profile_id}</a>
        </>
      );
    case "reattached_to_profile":
      return (
        <>
          Joins the profile <a href={`/portal/profiles/${effect.profile_id}`}>{effect.profile_id}</a> again
        </>
      );
    case "own_verification_kept":
      return <>Keeps its own verification and documents (record keeping)</>;
    case "order_still_open":
      return (
        <>
          Its <a href={`/portal/orders/${effect.order_id}`}>order</a> is still open; the order does not change
        </>
      );
    case "profile_gone":
      return <>The profile it left was deleted since: it joins none</>;
  }
}

/** A report's numbers with one outcome: how many, and those named (all, unless too many for the cookie). */
interface OutcomeGroup {
  outcome: string;
  count: number;
  numbers: { id: string; phone: string | null }[];
}

/** A release, restore or tag change as the page it redirects to shows it. */
export interface MoveNote {
  title: string;
  groups: OutcomeGroup[];
}

/** How many numbers each group names; the counts give the rest. */
const LISTED = 40;

function noteOf(title: string, results: readonly { number_id: string; phone_number: string | null; outcome: string }[]) {
  const groups = new Map<string, OutcomeGroup>();
  for (const result of results) {
    const group = groups.get(result.outcome) ?? { outcome: result.outcome, count: 0, numbers: [] };
    group.count += 1;
    if (group.numbers.length < LISTED) group.numbers.push({ id: result.number_id, phone: result.phone_number });
    groups.set(result.outcome, group);
  }
  return { title, groups: [...groups.values()] };
}

/** The same note naming half as many numbers in each group (the counts kept); undefined when it names none. */
function shorter(note: MoveNote): MoveNote | undefined {
  if (note.groups.every((group) => group.numbers.length === 0)) return undefined;
  const groups = note.groups.map((group) => ({
    ...group,
    numbers: group.numbers.slice(0, Math.floor(group.numbers.length / 2)),
  }));
  return { ...note, groups };
}

/** Leaves the report for the numbers' pages and redirects to `href` (303). */
export async function redirectWithMoveReport(
  c: Context<PortalEnv>,
  href: string,
  title: string,
  results: readonly { number_id: string; phone_number: string | null; outcome: string }[],
): Promise<Response> {
  await leaveAfterRedirect(c, portalNote(c, "numbers"), noteOf(title, results), shorter);
  return c.redirect(href, 303);
}

/** The report the last release, restore or tag change left for this page, once. */
export function takeMoveReport(c: Context<PortalEnv>): Promise<MoveNote | undefined> {
  return takeAfterRedirect<MoveNote>(c, portalNote(c, "numbers"));
}

export function MoveReportCard({ note }: { note: MoveNote }) {
  return (
    <section class="card report" aria-label={note.title}>
      <h2>{note.title}</h2>
      {note.groups.map((group) => (
        <>
          <h3>
            {outcomeWords(group.outcome)} ({group.count})
          </h3>
          <ul class="numbers">
            {group.numbers.map((number) => (
              <li>{number.phone ? <a href={`/portal/numbers/${number.id}`}>{number.phone}</a> : <code>{number.id}</code>}</li>
            ))}
            {group.count > group.numbers.length ? (
              <li class="muted">and {plural(group.count - group.numbers.length, "more number", "more numbers")}</li>
            ) : null}
          </ul>
        </>
      ))}
    </section>
  );
}

/** A number's tags as the settings form takes them: comma separated (a tag holds no comma). */
const tagsText = (tags: readonly string[]) => tags.join(", ");

/** The tags typed in a form, as the API's list: split at commas, trimmed, blanks dropped. */
export function typedTags(text: string | undefined): string[] {
  return (text ?? "")
    .split(",")
    .map((tag) => tag.trim())
    .filter((tag) => tag !== "");
}

function StateFacts({ number }: { number: NumberRow }) {
  return (
    <dl class="facts">
      <dt>Status</dt>
      <dd>
        <Badge status={number.status} />
      </dd>
      {number.releasedAt !== null ? (
        <>
          <dt>Released</dt>
          <dd>
            <Time time={number.releasedAt} /> by {number.releaseReason === "operator" ? "the operator" : "this account"}
          </dd>
        </>
      ) : null}
      {number.restorableUntil !== null ? (
        <>
          <dt>Restorable until</dt>
          <dd>
            <Time time={number.restorableUntil} />
          </dd>
        </>
      ) : null}
      {number.suspendedAt !== null ? (
        <>
          <dt>Suspended</dt>
          <dd>
            <Time time={number.suspendedAt} />
            {number.suspensionReason ? ` (${words(number.suspensionReason)})` : null}
          </dd>
        </>
      ) : null}
      <dt>Tags</dt>
      <dd>{number.tags.length > 0 ? number.tags.join(", ") : <span class="muted">none</span>}</dd>
      <dt>Your reference</dt>
      <dd>{number.customerReference ?? <span class="muted">none</span>}</dd>
      <dt>Release protection</dt>
      <dd>{number.releaseProtected ? "On: it cannot be released until turned off" : "Off"}</dd>
    </dl>
  );
}

/**
 * The top of a number's page: its state and details, the form of its tags, reference and protection, and Release or
 * Restore, each shown only when its action is available on the number now.
 */
export function NumberLifeCard({
  number,
  now,
  csrf,
  form,
}: {
  number: NumberRow;
  now: number;
  csrf: string;
  form?: SettingsForm | undefined;
}) {
  const href = `/portal/numbers/${number.id}`;
  const values = form?.values ?? {
    tags: tagsText(number.tags),
    customer_reference: number.customerReference ?? "",
    ...(number.releaseProtected ? { release_protected: "on" } : {}),
  };
  const errors = form?.errors ?? {};
  const releasable = availableOn(releaseNumbersAction, number, now);
  const restorable = availableOn(restoreNumbersAction, number, now);
  return (
    <section class="card stack" aria-label="The number">
      <StateFacts number={number} />
      {releasable || restorable ? (
        <div class="actions">
          {releasable ? (
            <form method="post" action={`${href}/release/preview`}>
              <CsrfField token={csrf} />
              <button type="submit">Release…</button>
            </form>
          ) : null}
          {restorable ? (
            <form method="post" action={`${href}/restore`}>
              <CsrfField token={csrf} />
              <button type="submit">Restore</button>
            </form>
          ) : null}
        </div>
      ) : null}
      {availableOn(updateNumberAction, number, now) ? (
        <form method="post" action={`${href}/settings`} class="stack" novalidate>
          <h2>Tags, reference and protection</h2>
          <CsrfField token={csrf} />
          {errors[""] ? <FieldError id="settings-error" message={errors[""]} /> : null}
          <TextInput name="tags" label="Tags" value={values.tags} error={errors.tags} hint="Separated by commas; at most 20" />
          <TextInput
            name="customer_reference"
            label="Your reference"
            value={values.customer_reference}
            error={errors.customer_reference}
            maxlength={100}
          />
          <label class="check">
            <input
              type="checkbox"
              name="release_protected"
              checked={values.release_protected === "on"}
              aria-describedby={errors.release_protected ? "release_protected-error" : undefined}
            />
            Protect from release
          </label>
          <FieldError id="release_protected-error" message={errors.release_protected} />
          <div class="actions">
            <button type="submit">Save</button>
          </div>
        </form>
      ) : null}
    </section>
  );
}
