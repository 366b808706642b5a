// Reading what an evaluation needs, in one D1 call each: a number (its pair, its verification, own or its profile's,
// and the pair's requirements), or a profile against a pair.
import { and, eq, or, sql } from "drizzle-orm";
import { batchByName } from "../db/batch.ts";
import type { Database } from "../db/client.ts";
import { catalog, kycDocuments, kycProfileNumbers, kycVerifications, numbers } from "../db/schema.ts";
import { DOCUMENT_ORDER, subjectVerification } from "../kyc/store.ts";
import { evaluate, type Pair } from "./evaluation.ts";
import type { Evaluation } from "./types.ts";

/** The evaluation of an owned number's verification against its pair; undefined when the number is not the account's. */
export async function evaluateNumber(
  db: Database,
  customerId: string,
  numberId: string,
  now: number,
): Promise<Evaluation | undefined> {
  const attachedProfile = sql`${kycVerifications.id} = (SELECT ${kycProfileNumbers.profileId} FROM ${kycProfileNumbers} WHERE ${eq(kycProfileNumbers.numberId, numberId)})`;
  const which = and(eq(kycVerifications.customerId, customerId), or(eq(kycVerifications.numberId, numberId), attachedProfile))!;
  const { found, verifications, documents } = await batchByName(db, {
    found: db
      .select({ countryCode: numbers.countryCode, numberType: numbers.numberType, requirements: catalog.requirements })
      .from(numbers)
      .leftJoin(catalog, and(eq(catalog.countryCode, numbers.countryCode), eq(catalog.numberType, numbers.numberType)))
      .where(and(eq(numbers.id, numberId), eq(numbers.customerId, customerId))),
    verifications: db.select().from(kycVerifications).where(which),
    documents: db
      .select({ document: kycDocuments })
      .from(kycDocuments)
      .innerJoin(kycVerifications, eq(kycVerifications.id, kycDocuments.kycId))
      .where(which)
      .orderBy(...DOCUMENT_ORDER),
  });
  const [number] = found;
  if (!number) return undefined;
  const [verification] = verifications;
  const subject = verification ? { verification, documents: documents.map((d) => d.document) } : null;
  return evaluate(number, number.requirements ?? null, subject, now);
}

/**
 * A profile of the account against orderable pairs, in one D1 call: its evaluation for each pair that is orderable
 * (keyed `CC/type`); undefined when the profile is not the account's.
 */
export async function evaluateProfile(
  db: Database,
  customerId: string,
  profileId: string,
  pairs: readonly Pair[],
  now: number,
): Promise<Map<string, Evaluation> | undefined> {
  const which = subjectVerification(customerId, { kind: "profile", profileId });
  const keys = [...new Set(pairs.map(pairKey))];
  const { verifications, documents, requirements } = await batchByName(db, {
    verifications: db.select().from(kycVerifications).where(which),
    documents: db
      .select({ document: kycDocuments })
      .from(kycDocuments)
      .innerJoin(kycVerifications, eq(kycVerifications.id, kycDocuments.kycId))
      .where(which)
      .orderBy(...DOCUMENT_ORDER),
    requirements: db
      .select()
      .from(catalog)
      .where(
        sql`${catalog.countryCode} || '/' || ${catalog.numberType} IN (SELECT value FROM json_each(${JSON.stringify(keys)}))`,
      ),
  });
  const [verification] = verifications;
  if (!verification) return undefined;
  const subject = { verification, documents: documents.map((d) => d.document) };
  return new Map(requirements.map((row) => [pairKey(row), evaluate(row, row.requirements ?? null, subject, now)]));
}

/** A pair as a map key and as audit events name it: "US/mobile". */
export function pairKey(pair: Pair): string {
  return `${pair.countryCode}/${pair.numberType}`;
}
