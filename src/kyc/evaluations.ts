// Loads what an evaluation needs, in one D1 call, for a number or for a profile against a pair.
import { and, eq } from "drizzle-orm";
import { pairIs } from "../catalog/store.ts";
import { evaluate, type Pair } from "../compliance/evaluation.ts";
import type { Evaluation } from "../compliance/types.ts";
import { batchByName } from "../db/batch.ts";
import type { Database } from "../db/client.ts";
import { catalog, kycVerifications, numbers } from "../db/schema.ts";
import {
  documentsOf,
  type NumberVerification,
  numberVerification,
  numberVerificationStatements,
  subjectVerification,
} from "./store.ts";

/** The evaluation of an owned number's verification against its pair; undefined when the number is not the account's. */
export async function evaluateNumber(
  db: Database,
  customerId: string,
  numberId: string,
  now: number,
): Promise<Evaluation | undefined> {
  return (await evaluatedNumber(db, customerId, numberId, now))?.evaluation;
}

/**
 * An owned number's verification (its own or its profile's, with its documents) and its evaluation against the
 * number's pair, in one D1 call; undefined when the number is not the account's.
 */
export async function evaluatedNumber(
  db: Database,
  customerId: string,
  numberId: string,
  now: number,
): Promise<{ found: NumberVerification | undefined; evaluation: Evaluation } | undefined> {
  const { found, ...read } = await batchByName(db, {
    found: db
      .select({ countryCode: numbers.countryCode, numberType: numbers.numberType, requirements: catalog.requirements })
      .from(numbers)
      .leftJoin(catalog, and(eq(catalog.countryCode, numbers.countryCode), eq(catalog.numberType, numbers.numberType)))
      .where(and(eq(numbers.id, numberId), eq(numbers.customerId, customerId))),
    ...numberVerificationStatements(db, customerId, numberId),
  });
  const [number] = found;
  if (!number) return undefined;
  const verification = numberVerification(read);
  // A pair no longer orderable has no requirements.
  return { found: verification, evaluation: evaluate(number, number.requirements ?? null, verification ?? null, now) };
}

/**
 * A profile of the account against an orderable pair, in one D1 call: undefined when the profile is not the account's,
 * null when the pair is not orderable.
 */
export async function evaluateProfile(
  db: Database,
  customerId: string,
  profileId: string,
  pair: Pair,
  now: number,
): Promise<Evaluation | null | undefined> {
  const which = subjectVerification(customerId, { kind: "profile", profileId });
  const { verifications, documents, pairs } = await batchByName(db, {
    verifications: db.select().from(kycVerifications).where(which),
    documents: documentsOf(db, which),
    pairs: db.select().from(catalog).where(pairIs(pair)),
  });
  const [verification] = verifications;
  if (!verification) return undefined;
  const [row] = pairs;
  if (!row) return null;
  return evaluate(row, row.requirements ?? null, { verification, documents: documents.map((d) => d.document) }, now);
}
