// The report of a profile's attach or detach, grouped by refusal reason. It is shown after the redirect
// (src/ui/after-redirect.ts), so a reload repeats nothing.
import type { Context } from "hono";
import type { Database } from "../db/client.ts";
import type { PortalEnv } from "../env.ts";
import type { ATTACH_REFUSALS, NumbersReport } from "../kyc/profile-numbers.ts";
import { findProfileNames } from "../kyc/profiles-store.ts";
import { withPrefix } from "../lib/ids.ts";
import { capitalised, words } from "../lib/words.ts";
import { findOwnedNumbers } from "../numbers/store.ts";
import { leaveAfterRedirect, takeAfterRedirect } from "../ui/after-redirect.ts";
import { plural } from "../ui/format.ts";
import { portalNote } from "./once-shown.ts";

type RefusalCode = (typeof ATTACH_REFUSALS)[number];

/** A number a report names: its id and phone number; for one not found, the id as it was given (`phone` null). */
interface ReportedNumber {
  id: string;
  phone: string | null;
}

/** Some of the report's numbers: how many, and those listed (all, unless too many for the note). */
interface Listed {
  count: number;
  numbers: ReportedNumber[];
}

/** A profile a refused number is attached to. */
interface OtherProfile {
  id: string;
  name: string;
}

/** A report as the profile's page shows it after the redirect. */
export interface ReportNote {
  profileId: string;
  kind: "attach" | "detach";
  changed: Listed;
  unchanged: Listed;
  /**
   * The refused, grouped by why: for unmet requirements, by the numbers' country and type (`pair`); for numbers of
   * another profile, by that profile (`profile`: its id and name, where it detaches them).
   */
  refused: (Listed & { code: RefusalCode; pair?: string; profile?: OtherProfile })[];
}

/** How many numbers each list of the report shows; the counts give the rest. */
const LISTED = 40;

/** The report of `report` for the profile `profileId`, its numbers named by phone number, other profiles by name. */
async function reportNote(
  db: Database,
  customerId: string,
  profileId: string,
  kind: ReportNote["kind"],
  report: NumbersReport,
): Promise<ReportNote> {
  const refusedIds = report.refused.map((refusal) => refusal.numberId.replace(/^num_/, ""));
  const rows = new Map(
    (await findOwnedNumbers(db, customerId, [...report.changed, ...report.unchanged, ...refusedIds])).map((row) => [row.id, row]),
  );
  const named = (id: string): ReportedNumber => ({ id, phone: rows.get(id)?.phoneNumber ?? null });
  const listed = (ids: readonly string[]): Listed => ({ count: ids.length, numbers: ids.slice(0, LISTED).map(named) });
  const otherProfileOf = (id: string, code: RefusalCode) =>
    code === "attached_to_other_profile" ? (rows.get(id)?.kycProfileId ?? undefined) : undefined;
  const others = await findProfileNames(db, customerId, [
    ...new Set(refusedIds.flatMap((id, i) => otherProfileOf(id, report.refused[i]!.code) ?? [])),
  ]);
  const groups = new Map<string, { code: RefusalCode; pair?: string; profile?: OtherProfile; ids: string[] }>();
  report.refused.forEach((refusal, i) => {
    const id = refusedIds[i]!;
    const row = rows.get(id);
    const pair = refusal.code === "requirements_not_met" && row ? `${row.countryCode}/${row.numberType}` : undefined;
    const otherId = otherProfileOf(id, refusal.code);
    const other = otherId === undefined ? undefined : others.get(otherId);
    const profile = otherId === undefined || other === undefined ? undefined : { id: otherId, name: other };
    const key = `${refusal.code} ${pair ?? ""} ${profile?.id ?? ""}`;
    const group = groups.get(key) ?? {
      code: refusal.code,
      ...(pair === undefined ? {} : { pair }),
      ...(profile === undefined ? {} : { profile }),
      ids: [],
    };
    group.ids.push(id);
    groups.set(key, group);
  });
  return {
    profileId,
    kind,
    changed: listed(report.changed),
    unchanged: listed(report.unchanged),
    refused: [...groups.values()].map(({ ids, ...group }) => ({ ...group, ...listed(ids) })),
  };
}

/** The same report naming half as many numbers in each list (the counts kept); undefined when it names none. */
function shorter(note: ReportNote): ReportNote | undefined {
  const lists = [note.changed, note.unchanged, ...note.refused];
  if (lists.every((list) => list.numbers.length === 0)) return undefined;
  const half = <L extends Listed>(list: L): L => ({
    ...list,
    numbers: list.numbers.slice(0, Math.floor(list.numbers.length / 2)),
  });
  return { ...note, changed: half(note.changed), unchanged: half(note.unchanged), refused: note.refused.map(half) };
}

/** Leaves the report for the profile's page and redirects there (303), as every form of the portal does. */
export async function redirectWithReport(
  c: Context<PortalEnv>,
  href: string,
  { profileId, kind, report }: { profileId: string; kind: ReportNote["kind"]; report: NumbersReport },
): Promise<Response> {
  const note = await reportNote(c.var.db, c.var.visitor.customer.id, profileId, kind, report);
  await leaveAfterRedirect(c, portalNote(c, "profiles"), note, shorter);
  return c.redirect(href, 303);
}

/** The report the last attach or detach left for this profile's page, once; none for another profile's. */
export async function takeReport(c: Context<PortalEnv>, profileId: string): Promise<ReportNote | undefined> {
  const note = await takeAfterRedirect<ReportNote>(c, portalNote(c, "profiles"));
  return note?.profileId === profileId ? note : undefined;
}

/**
 * Why numbers were refused, and what to click to resolve it, on the profile's page at `href` (`profileHref`: another
 * profile's page).
 */
function refusalWords(group: ReportNote["refused"][number], href: string, profileHref: (id: string) => string) {
  const { code, pair, profile } = group;
  switch (code) {
    case "number_released":
      return {
        title: "Each was released",
        remedy: <>Restore the numbers in Numbers first (within their restore window), then attach them here again.</>,
      };
    case "has_own_verification":
      return {
        title: "Each has a verification of its own",
        remedy: <>Open each number and choose “Delete verification…” there, then attach it again here.</>,
      };
    case "attached_to_other_profile":
      return profile
        ? {
            title: `Each is attached to the profile “${profile.name}”`,
            remedy: (
              <>
                On <a href={`${profileHref(profile.id)}#numbers`}>the profile “{profile.name}”</a>, select them under Numbers and
                choose “Detach the selected numbers”, then attach them here again.
              </>
            ),
          }
        : {
            // The other profile went (or its numbers left it) since the attach: each number's page says where it is now.
            title: "Each is attached to another profile",
            remedy: (
              <>Open each number: its page links its profile. Detach it on that profile's page, then attach it here again.</>
            ),
          };
    case "requirements_not_met": {
      const [country, numberType] = (pair ?? "").split("/");
      const numbers = `${country} ${words(numberType ?? "")} numbers`;
      return {
        title: `The profile does not meet the requirements of ${numbers}`,
        remedy: (
          <>
            <a href={`${href}?pair=${encodeURIComponent(pair ?? "")}#requirements`}>See what {numbers} still need</a>, add it to
            the profile, then attach them again.
          </>
        ),
      };
    }
    case "not_found":
      return {
        title: "No number of this account has these ids",
        remedy: (
          <>
            Check them, or choose the numbers in <a href="/portal/numbers">Numbers</a> instead.
          </>
        ),
      };
  }
}

/** A list of the report's numbers, each linking to its page (by phone number), and how many more there are. */
function NumberList({ list }: { list: Listed }) {
  const more = list.count - list.numbers.length;
  return (
    <ul class="numbers">
      {list.numbers.map((number) => (
        <li>
          {number.phone ? (
            <a href={`/portal/numbers/${number.id}`}>{number.phone}</a>
          ) : (
            <code>{withPrefix("num", number.id)}</code>
          )}
        </li>
      ))}
      {more > 0 ? <li class="muted">and {plural(more, "more number", "more numbers")}</li> : null}
    </ul>
  );
}

/**
 * What an attach or detach did: its counts, then what was refused, by why, with what to do (to lead with what to
 * fix), then the numbers changed and those already so.
 */
export function NumbersReportCard({
  note,
  href,
  profileHref,
}: {
  note: ReportNote;
  href: string;
  profileHref: (id: string) => string;
}) {
  const [done, already] = note.kind === "attach" ? ["attached", "already attached"] : ["detached", "already detached"];
  const title = note.kind === "attach" ? "Attach report" : "Detach report";
  const refused = note.refused.reduce((sum, group) => sum + group.count, 0);
  return (
    <section class="card report" aria-label={title}>
      <h2>{title}</h2>
      <p>
        {plural(note.changed.count, "number")} {done} · {note.unchanged.count} {already} · {refused} not {done}
      </p>
      {note.refused.map((group) => {
        const { title: why, remedy } = refusalWords(group, href, profileHref);
        return (
          <>
            <h3>
              Not {done}: {why} ({group.count})
            </h3>
            <p>{remedy}</p>
            <NumberList list={group} />
          </>
        );
      })}
      {note.changed.count > 0 ? (
        <details open={note.changed.count <= 10}>
          <summary>
            {capitalised(done)} ({note.changed.count})
          </summary>
          <NumberList list={note.changed} />
        </details>
      ) : null}
      {note.unchanged.count > 0 ? (
        <details>
          <summary>
            {capitalised(already)} ({note.unchanged.count})
          </summary>
          <NumberList list={note.unchanged} />
        </details>
      ) : null}
    </section>
  );
}
