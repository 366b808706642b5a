// The table of what a verification allows in each state (src/kyc/lifecycle.ts) gives both the stores' SQL guards and
// the pages' "may I" in JS: for generated rows written into D1, each guard selects the row exactly when its JS
// predicate allows the action. The rules themselves are held by the KYC tests and models through the API.
import { env } from "cloudflare:workers";
import { and, eq } from "drizzle-orm";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDatabase } from "../src/db/client.ts";
import {
  DOCUMENT_STATUSES,
  type DocumentRow,
  KYC_STATUSES,
  type KycRow,
  kycDocuments,
  kycVerifications,
  NUMBER_STATUSES,
  type NumberRow,
  numbers,
  type RejectionReason,
} from "../src/db/schema.ts";
import {
  documentDeletable,
  documentDeletableGuard,
  isReleased,
  type KycAction,
  NUMBER_NOT_RELEASED,
  RENEWAL_WINDOW_MS,
  REVIEWABLE,
  reviewable,
  verificationAllows,
  verificationGuard,
} from "../src/kyc/lifecycle.ts";
import { DAY_MS } from "../src/lib/time.ts";
import { submittedVerification } from "./helpers.ts";

const db = createDatabase(env.DB);
const bare = (id: string) => id.replace(/^[a-z]+_/, "");

/** One number, its verification and one of its documents, rewritten by every run. */
let numberId = "";
let kycId = "";
let documentId = "";

beforeAll(async () => {
  const setup = await submittedVerification("lifecycle");
  kycId = bare(setup.kycId);
  numberId = bare(setup.numberId);
  const kyc = await db.select().from(kycVerifications).where(eq(kycVerifications.id, kycId)).get();
  if (!kyc) expect.fail("the verification was not stored");
  documentId = crypto.randomUUID();
  // A row alone (no file in R2): only its guards are read.
  await db.insert(kycDocuments).values({
    id: documentId,
    kycId,
    customerId: kyc.customerId,
    documentType: "identity",
    filename: "passport.pdf",
    fileSize: 1,
    mimeType: "application/pdf",
    objectKey: `kyc/${kyc.customerId}/${kycId}/${documentId}`,
    uploadedAt: 0,
  });
});

afterAll(async () => {
  // Back to pending without an expiry, so the expiry job other files run finds nothing of it.
  await db.update(numbers).set({ status: "active" }).where(eq(numbers.id, numberId));
  await db.update(kycVerifications).set({ status: "pending", expiresAt: null }).where(eq(kycVerifications.id, kycId));
});

const NOW_MIN = Date.UTC(2026, 0, 1);

/** A verification's state relative to `now`: the renewal window's edge (to the millisecond) and anywhere in two years. */
const state = fc.record({
  now: fc.integer({ min: NOW_MIN, max: NOW_MIN + 365 * DAY_MS }),
  status: fc.constantFrom(...KYC_STATUSES),
  expiresIn: fc.oneof(
    fc.constant(null),
    fc.integer({ min: -2, max: 2 }).map((ms) => RENEWAL_WINDOW_MS + ms),
    fc.integer({ min: -365 * DAY_MS, max: 365 * DAY_MS }),
  ),
  document: fc.record({ status: fc.constantFrom(...DOCUMENT_STATUSES), named: fc.boolean() }),
  // Released sets the verification's number_released (migrations/0016's trigger).
  numberStatus: fc.constantFrom(...NUMBER_STATUSES),
});
type State = typeof state extends fc.Arbitrary<infer S> ? S : never;

/** Writes the state, then reads the row back and which of the guards select it, in one D1 call. */
async function guardsOn({ now, status, expiresIn, document, numberStatus }: State) {
  const reasons: RejectionReason[] = document.named ? [{ code: "document_illegible", document_id: `doc_${documentId}` }] : [];
  const thisKyc = eq(kycVerifications.id, kycId);
  const selects = (guard: ReturnType<typeof verificationGuard>) =>
    db.select({ id: kycVerifications.id }).from(kycVerifications).where(and(thisKyc, guard));
  const thisNumber = eq(numbers.id, numberId);
  const [, , , [kyc], [doc], [number], amend, upload, remove, resubmit, deleteDocument, review, held] = await db.batch([
    db.update(numbers).set({ status: numberStatus }).where(thisNumber),
    db
      .update(kycVerifications)
      .set({ status, expiresAt: expiresIn === null ? null : now + expiresIn })
      .where(thisKyc),
    db.update(kycDocuments).set({ status: document.status, rejectionReasons: reasons }).where(eq(kycDocuments.id, documentId)),
    db.select().from(kycVerifications).where(thisKyc),
    db.select().from(kycDocuments).where(eq(kycDocuments.id, documentId)),
    db.select().from(numbers).where(thisNumber),
    selects(verificationGuard("amend", now)),
    selects(verificationGuard("upload")),
    selects(verificationGuard("delete")),
    selects(verificationGuard("resubmit")),
    db
      .select({ id: kycDocuments.id })
      .from(kycDocuments)
      .where(and(eq(kycDocuments.id, documentId), documentDeletableGuard())),
    selects(REVIEWABLE),
    db.select({ id: numbers.id }).from(numbers).where(and(thisNumber, NUMBER_NOT_RELEASED)),
  ]);
  if (!kyc || !doc || !number) expect.fail("the rows were not read back");
  const selected: Record<Checked, boolean> = {
    amend: amend.length === 1,
    upload: upload.length === 1,
    delete: remove.length === 1,
    resubmit: resubmit.length === 1,
    deleteDocument: deleteDocument.length === 1,
    review: review.length === 1,
    numberHeld: held.length === 1,
  };
  return { kyc, doc, number, selected };
}

/** The verification's actions, the review as far as the number goes, and whether the number is held (not released). */
type Checked = KycAction | "review" | "numberHeld";

/** What the JS predicates say of the rows as read. */
function allowedBy(kyc: KycRow, doc: DocumentRow, number: NumberRow, now: number): Record<Checked, boolean> {
  return {
    amend: verificationAllows(kyc, "amend", now),
    upload: verificationAllows(kyc, "upload"),
    delete: verificationAllows(kyc, "delete"),
    resubmit: verificationAllows(kyc, "resubmit"),
    deleteDocument: documentDeletable(kyc, doc),
    review: reviewable(kyc),
    numberHeld: !isReleased(number),
  };
}

describe("what a verification allows in each state", () => {
  it("each store's guard selects the row exactly when the pages' predicate allows the action", async () => {
    // Each action seen allowed and refused, so the property cannot hold by never reaching a case.
    const seen = new Set<string>();
    await fc.assert(
      fc.asyncProperty(state, async (generated) => {
        const { kyc, doc, number, selected } = await guardsOn(generated);
        const allowed = allowedBy(kyc, doc, number, generated.now);
        const seenAs = { status: kyc.status, expiresAt: kyc.expiresAt, document: doc.status, number: number.status };
        expect(selected, JSON.stringify(seenAs)).toEqual(allowed);
        for (const [action, yes] of Object.entries(allowed)) seen.add(`${action} ${yes}`);
      }),
      { numRuns: 100 },
    );
    const actions: Checked[] = ["amend", "upload", "deleteDocument", "delete", "resubmit", "review", "numberHeld"];
    expect([...seen].sort()).toEqual(actions.flatMap((action) => [`${action} false`, `${action} true`]).sort());
  });

  it("an approved verification is amendable from exactly RENEWAL_WINDOW_MS before it expires", async () => {
    const now = NOW_MIN;
    const edge = [-1, 0, 1].map((ms) => ({ now, status: "approved" as const, expiresIn: RENEWAL_WINDOW_MS + ms }));
    const document = { status: "verified" as const, named: false };
    const numberStatus = "active" as const;
    const amendable = [];
    for (const state of edge) amendable.push((await guardsOn({ ...state, document, numberStatus })).selected.amend);
    expect(amendable).toEqual([true, true, false]);
  });
});
