// The large account's compliance data: its main profile (approved, the numbers of its older orders attached),
// numbers with an approval of their own and two small profiles, all expiring over the next year, a profile with no
// number yet, and requirements on the US pairs that the profiles meet.
import type { Requirements } from "../../src/db/schema.ts";
import { seededRandom } from "../../src/lib/seeded-random.ts";
import { DAY, insertRows, type NumberSeed } from "./generate.ts";

/**
 * The large account's compliance: its main profile (approved, the numbers of its older orders attached), numbers with
 * an approval of their own and two small profiles, all expiring over the next year; and a profile with no number yet,
 * that the benchmark attaches the account's newest numbers to in one request.
 */
const MAIN_PROFILE_NUMBERS = 9_000;
const MAIN_PROFILE_EXPIRES_IN_DAYS = 250;
const OWN_APPROVALS = 700;
const SMALL_PROFILES: { name: string; numbers: number; expiresInDays: number }[] = [
  { name: "Field teams", numbers: 100, expiresInDays: 40 },
  { name: "Store hotlines", numbers: 100, expiresInDays: 200 },
];
/** The numbers attached to a profile in one request: none has a verification or a profile. */
export const ATTACH_NUMBERS = 10_000;
/** The numbers list's kyc_expires_before is this many days ahead (a quarter). */
const EXPIRY_WINDOW_DAYS = 91;
/** The requirements of every US pair (the evaluated number's among them); the account's profiles meet them. */
const US_REQUIREMENTS: Requirements = {
  verification_types: ["individual", "business"],
  address_in_country: true,
  fields: { individual: ["email"], business: ["company_name", "tax_id"] },
  documents: [
    {
      key: "registration",
      document_types: ["business_registration"],
      applies_to: ["business"],
      description: "The company's certificate of incorporation",
    },
    {
      key: "proof_of_address",
      document_types: ["address_proof", "utility_bill", "bank_statement"],
      applies_to: ["individual", "business"],
      description: "A utility bill or bank statement at the address",
    },
  ],
};

export interface ComplianceFixtures {
  /** The large account's main profile, with MAIN_PROFILE_NUMBERS numbers attached. */
  mainProfileId: string;
  mainProfileNumbers: number;
  /** A number of the main profile whose pair (a US one) has requirements. */
  evaluatedNumberId: string;
  /** The numbers list's kyc_expires_before (YYYY-MM-DD), and how many of the account's numbers it matches. */
  expiresBefore: string;
  expiringNumbers: number;
  /** A profile with no number, and ATTACH_NUMBERS numbers of the account with no verification, to attach to it. */
  attachProfileId: string;
  attachNumberIds: string[];
}

/** The columns of a verification (a number's own, or a profile) as the compliance seed writes them. */
const VERIFICATION_COLUMNS = [
  "id",
  "customer_id",
  "number_id",
  "name",
  "status",
  "type",
  "address_line_1",
  "city",
  "state_province",
  "postal_code",
  "country",
  "company_name",
  "tax_id",
  "email",
  "submitted_at",
  "reviewed_at",
  "expires_at",
];

/** The columns of a number's verification awaiting review: no profile name, company, review or expiry. */
export const AWAITING_VERIFICATION_COLUMNS = VERIFICATION_COLUMNS.filter(
  (column) => !["name", "company_name", "tax_id", "email", "reviewed_at", "expires_at"].includes(column),
);

/** An approved verification expiring at `expiresAt` (approved 365 days before, submitted two days before that). */
function approvedRow(customerId: string, numberId: string | null, name: string | null, expiresAt: number): unknown[] {
  const reviewedAt = expiresAt - 365 * DAY;
  return [
    crypto.randomUUID(),
    customerId,
    numberId,
    name,
    "approved",
    "business",
    "1 Market St",
    "San Francisco",
    "CA",
    "94105",
    "US",
    "Large Telecom Inc.",
    "94-1234567",
    null,
    reviewedAt - 2 * DAY,
    reviewedAt,
    expiresAt,
  ];
}

/** A profile's verified documents: the company's registration and a proof of address, as the US pairs ask. */
function profileDocuments(customerId: string, profileId: string, uploadedAt: number): unknown[][] {
  const document = (type: string, filename: string, expirationDate: string | null) => {
    const id = crypto.randomUUID();
    return [
      id,
      profileId,
      customerId,
      type,
      filename,
      180_000,
      "application/pdf",
      expirationDate,
      "verified",
      `kyc/${customerId}/${profileId}/${id}`,
      uploadedAt,
    ];
  };
  return [
    document("business_registration", "incorporation.pdf", null),
    document("address_proof", "utility-bill.pdf", new Date(uploadedAt + 540 * DAY).toISOString().slice(0, 10)),
  ];
}

/**
 * The large account's compliance, from `numbers` (oldest first, none with a verification): some spread over the
 * account get an approval of their own or join a small profile; of the rest, the older ones join the main profile and
 * the newest ATTACH_NUMBERS stay free for the attach. The US pairs get requirements that the profiles meet (their
 * documents are rows only: nothing reads their bytes).
 */
export async function seedCompliance(
  d1: D1Database,
  customerId: string,
  numbers: NumberSeed[],
  now: number,
  log: (line: string) => void,
): Promise<ComplianceFixtures> {
  const spreadCount = OWN_APPROVALS + SMALL_PROFILES.reduce((sum, p) => sum + p.numbers, 0);
  if (spreadCount + MAIN_PROFILE_NUMBERS + ATTACH_NUMBERS > numbers.length) throw new Error("too few numbers to seed");
  const next = seededRandom(29);
  // A seeded shuffle of the positions: the first `spreadCount` are spread over the account's whole history.
  const positions = numbers.map((_, i) => i);
  for (let i = positions.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [positions[i], positions[j]] = [positions[j]!, positions[i]!];
  }
  const spread = positions.slice(0, spreadCount).map((i) => numbers[i]!);
  const rest = positions
    .slice(spreadCount)
    .sort((a, b) => a - b)
    .map((i) => numbers[i]!);
  const mainNumbers = rest.slice(0, MAIN_PROFILE_NUMBERS);
  const attachNumbers = rest.slice(-ATTACH_NUMBERS);

  const expiresBefore = new Date(now + EXPIRY_WINDOW_DAYS * DAY).toISOString().slice(0, 10);
  const cutoff = Date.parse(`${expiresBefore}T00:00:00.000Z`);
  let expiringNumbers = 0;
  const verifications: unknown[][] = [];
  const attachments: unknown[][] = [];
  const documents: unknown[][] = [];
  const addProfile = (name: string, expiresAt: number, attached: NumberSeed[]) => {
    const row = approvedRow(customerId, null, name, expiresAt);
    const id = row[0] as string;
    verifications.push(row);
    documents.push(...profileDocuments(customerId, id, row[14] as number));
    for (const number of attached) attachments.push([number.id, crypto.randomUUID(), id, customerId, row[15]]);
    if (expiresAt < cutoff) expiringNumbers += attached.length;
    return id;
  };
  // Own approvals expiring uniformly over the next year (each approved a year before it expires).
  for (const number of spread.slice(0, OWN_APPROVALS)) {
    const expiresAt = now + Math.floor((0.01 + next() * 0.99) * 365 * DAY);
    verifications.push(approvedRow(customerId, number.id, null, expiresAt));
    if (expiresAt < cutoff) expiringNumbers++;
  }
  let from = OWN_APPROVALS;
  for (const profile of SMALL_PROFILES) {
    addProfile(profile.name, now + profile.expiresInDays * DAY, spread.slice(from, from + profile.numbers));
    from += profile.numbers;
  }
  const mainProfileId = addProfile("Large Telecom Inc. (all teams)", now + MAIN_PROFILE_EXPIRES_IN_DAYS * DAY, mainNumbers);
  // The profile the attach fills: approved this week, no number yet.
  const attachProfileId = addProfile("Large Telecom Inc. (2026 numbers)", now + 360 * DAY, []);

  await insertRows(d1, "kyc_verifications", VERIFICATION_COLUMNS, verifications);
  await insertRows(d1, "kyc_profile_numbers", ["number_id", "kyc_id", "profile_id", "customer_id", "attached_at"], attachments);
  await insertRows(
    d1,
    "kyc_documents",
    [
      "id",
      "kyc_id",
      "customer_id",
      "document_type",
      "filename",
      "file_size",
      "mime_type",
      "expiration_date",
      "status",
      "object_key",
      "uploaded_at",
    ],
    documents,
  );
  const evaluated = mainNumbers.find((n) => n.countryCode === "US");
  if (!evaluated) throw new Error("the main profile has no US number");
  await d1.prepare("UPDATE catalog SET requirements = ? WHERE country_code = 'US'").bind(JSON.stringify(US_REQUIREMENTS)).run();
  log(
    `compliance: a profile with ${mainNumbers.length} numbers, ${SMALL_PROFILES.length} small profiles, ` +
      `${OWN_APPROVALS} own approvals; kyc_expires_before=${expiresBefore} matches ${expiringNumbers} numbers`,
  );
  return {
    mainProfileId,
    mainProfileNumbers: mainNumbers.length,
    evaluatedNumberId: evaluated.id,
    expiresBefore,
    expiringNumbers,
    attachProfileId,
    attachNumberIds: attachNumbers.map((n) => n.id),
  };
}
