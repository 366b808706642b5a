// What a verification or profile allows its account to do in each state. The stores' SQL guards and the JS availability
// checks are both built from this table, so they cannot disagree.
import { and, eq, inArray, lte, ne, or, type SQL, sql } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import { type Refusal, refusalByState, refuse } from "../db/outcome.ts";
import {
  type DocumentRow,
  type DocumentStatus,
  KYC_STATUSES,
  type KycRow,
  type KycStatus,
  kycDocuments,
  kycVerifications,
  type NumberRow,
  type NumberStatus,
  numbers,
} from "../db/schema.ts";
import { literal } from "../db/sql.ts";
import { DAY_MS } from "../lib/time.ts";

/** An approved verification may be renewed (amended, and so re-opened) from this long before it expires. */
export const RENEWAL_WINDOW_MS = 60 * DAY_MS;

/** What each action allows in one state. */
interface Allows {
  /** Amend the address (which re-opens the verification); "renewal": only within RENEWAL_WINDOW_MS of its expiry. */
  amend: boolean | "renewal";
  /** Add a document (the store also caps how many a verification holds). */
  upload: boolean;
  /** Delete a document; "named": only a document a rejection's reason named. */
  deleteDocument: boolean | "named";
  /** Delete a number's own verification (a profile's rule is no numbers attached and no open order, in the store). */
  delete: boolean;
  /** Re-open it for review unchanged. */
  resubmit: boolean;
}

export type KycAction = keyof Allows;
/** The actions the state alone decides. */
type StateAction = { [A in KycAction]: Allows[A] extends boolean ? A : never }[KycAction];

const ALLOWS: Readonly<Record<KycStatus, Readonly<Allows>>> = {
  pending: { amend: true, upload: true, deleteDocument: true, delete: true, resubmit: false },
  under_review: { amend: false, upload: true, deleteDocument: true, delete: false, resubmit: false },
  approved: { amend: "renewal", upload: false, deleteDocument: false, delete: false, resubmit: false },
  rejected: { amend: true, upload: true, deleteDocument: "named", delete: true, resubmit: true },
};

/**
 * What a released number's own verification refuses (409 number_released): it stays with the tenure as a record, read,
 * downloaded and deleted as before, but neither changed nor reviewed. A number released has no verification started.
 */
const REFUSED_WHILE_RELEASED: ReadonlySet<KycAction | "review"> = new Set(["amend", "upload", "resubmit", "review"]);

const RELEASED: NumberStatus = "released";

/** Whether the number is released: it takes no new verification and joins no profile. */
export function isReleased(number: Pick<NumberRow, "status">): boolean {
  return number.status === RELEASED;
}

/** isReleased as the guard of a statement over numbers: the numbers that are not released. */
export const NUMBER_NOT_RELEASED: SQL = sql`${numbers.status} <> ${literal(RELEASED)}`;

/** Whether the verification refuses `action` because its number was released (a profile's never does). */
function refusedAsReleased(kyc: Pick<KycRow, "numberReleased">, action: KycAction | "review"): boolean {
  return kyc.numberReleased && REFUSED_WHILE_RELEASED.has(action);
}

/** The rows of kyc_verifications (or an alias of it) whose number is not released; a profile's never is. */
export function numberNotReleasedIn(table: { numberReleased: SQLiteColumn }): SQL {
  return eq(table.numberReleased, false);
}

/** refusedAsReleased as a guard over kyc_verifications: the rows that do not refuse `action` for it. */
function notRefusedAsReleased(action: KycAction | "review"): SQL | undefined {
  return REFUSED_WHILE_RELEASED.has(action) ? numberNotReleasedIn(kycVerifications) : undefined;
}

/** Why a guarded `action` on the verification wrote nothing, from a read of it afterwards. */
export function verificationRefusal(
  current: Pick<KycRow, "status" | "numberReleased"> | undefined,
  action: KycAction | "review",
): Refusal<"not_found" | "wrong_state" | "number_released"> {
  return current && refusedAsReleased(current, action) ? refuse("number_released") : refusalByState(current);
}

/**
 * The operator's review as far as the number goes (the moves by status are review-store.ts's): SQL and JS. The review
 * queue shows only these (numberNotReleasedIn).
 */
export const REVIEWABLE: SQL = notRefusedAsReleased("review")!;
export const reviewable = (kyc: Pick<KycRow, "numberReleased">): boolean => !refusedAsReleased(kyc, "review");

/** The statuses in which `action` is allowed as `allowance` (always, or under its condition). */
function statusesWhere<A extends KycAction>(action: A, allowance: Allows[A]): KycStatus[] {
  return KYC_STATUSES.filter((status) => ALLOWS[status][action] === allowance);
}

/**
 * A document a reviewer's reason named at a rejection: it stays rejected until deleted, whatever its verification does,
 * and may be deleted while the verification is rejected. (Without reasons a rejection rejects every document, and they
 * follow the verification again when it re-opens.)
 */
export const REJECTED_BY_NAME = and(
  eq(kycDocuments.status, "rejected" satisfies DocumentStatus),
  ne(kycDocuments.rejectionReasons, sql`'[]'`),
)!;

/** REJECTED_BY_NAME for a document read. */
function rejectedByName(document: Pick<DocumentRow, "status" | "rejectionReasons">): boolean {
  return document.status === "rejected" && document.rejectionReasons.length > 0;
}

/** Whether an approval expiring at `expiresAt` is within its renewal window at `now`. */
function inRenewalWindow(expiresAt: number | null, now: number): boolean {
  return expiresAt !== null && expiresAt <= now + RENEWAL_WINDOW_MS;
}

/** Whether the verification allows `action` now (the pages' forms and links ask). */
export function verificationAllows(kyc: Pick<KycRow, "status" | "numberReleased">, action: StateAction): boolean;
export function verificationAllows(
  kyc: Pick<KycRow, "status" | "numberReleased" | "expiresAt">,
  action: "amend",
  now: number,
): boolean;
export function verificationAllows(
  kyc: Pick<KycRow, "status" | "numberReleased"> & Partial<Pick<KycRow, "expiresAt">>,
  action: StateAction | "amend",
  now?: number,
): boolean {
  if (refusedAsReleased(kyc, action)) return false;
  const allowed = ALLOWS[kyc.status][action];
  if (allowed === "renewal") return now !== undefined && inRenewalWindow(kyc.expiresAt ?? null, now);
  return allowed;
}

/** verificationAllows as the guard of a statement over kyc_verifications: the rows that allow `action` now. */
export function verificationGuard(action: StateAction): SQL;
export function verificationGuard(action: "amend", now: number): SQL;
export function verificationGuard(action: StateAction | "amend", now?: number): SQL {
  const always = inArray(kycVerifications.status, statusesWhere(action, true));
  const byState =
    action !== "amend" || now === undefined
      ? always
      : or(
          always,
          and(
            inArray(kycVerifications.status, statusesWhere("amend", "renewal")),
            lte(kycVerifications.expiresAt, now + RENEWAL_WINDOW_MS),
          ),
        )!;
  const held = notRefusedAsReleased(action);
  return held ? and(held, byState)! : byState;
}

/** Whether the document may be deleted while its verification is as `kyc` is. */
export function documentDeletable(
  kyc: Pick<KycRow, "status">,
  document: Pick<DocumentRow, "status" | "rejectionReasons">,
): boolean {
  const allowed = ALLOWS[kyc.status].deleteDocument;
  return allowed === "named" ? rejectedByName(document) : allowed;
}

/** documentDeletable as the guard of a statement over kyc_documents (its verification's status read by a subquery). */
export function documentDeletableGuard(): SQL {
  const status = sql`(SELECT ${kycVerifications.status} FROM ${kycVerifications} WHERE ${kycVerifications.id} = ${kycDocuments.kycId})`;
  return or(
    inArray(status, statusesWhere("deleteDocument", true)),
    and(inArray(status, statusesWhere("deleteDocument", "named")), REJECTED_BY_NAME),
  )!;
}
