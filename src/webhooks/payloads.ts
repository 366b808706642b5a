// Event data built in SQL from the rows at the event's point in the change's batch, shaped like the API's answers (a
// test holds them equal to toOrder, toNumber, toVerification), and the event object around it.
import { type AnyColumn, asc, eq, type SQL, sql } from "drizzle-orm";
import {
  type EventRow,
  kycDocuments,
  kycProfileNumbers,
  kycVerifications,
  numbers,
  orders,
  reservationNumbers,
  reservations,
} from "../db/schema.ts";
import { inJsonList, iso } from "../db/sql.ts";
import { withPrefix } from "../lib/ids.ts";
import { toIso } from "../lib/time.ts";

/**
 * The event object a delivery sends and the events API answers (typed there, src/events/schemas.ts, by the shape of
 * `data`); `data` is stored as the JSON the API answered at the time.
 */
export function eventObject(row: Pick<EventRow, "id" | "type" | "data" | "createdAt">) {
  return {
    id: withPrefix("evt", row.id),
    type: row.type,
    timestamp: toIso(row.createdAt),
    data: JSON.parse(row.data) as unknown,
  };
}

function prefixed(prefix: string, id: AnyColumn | SQL): SQL {
  return sql`${`${prefix}_`} || ${id}`;
}

/** json_object over named fields, in their order. */
function jsonObject(fields: Record<string, AnyColumn | SQL>): SQL {
  const pairs = Object.entries(fields).map(([name, value]) => sql`${name}, ${value}`);
  return sql`json_object(${sql.join(pairs, sql`, `)})`;
}

/** The Order (toOrder) of the `orders` row in scope. */
export function orderData(): SQL {
  return jsonObject({
    order_id: orders.id,
    // formatOrderNumber: at least six digits.
    order_number: sql`printf('#%06d', ${orders.orderSeq})`,
    number_type: orders.numberType,
    country_code: orders.countryCode,
    quantity: orders.quantity,
    status: orders.status,
    fulfilled_quantity: orders.fulfilledQuantity,
    notes: orders.notes,
    requested_at: iso(orders.requestedAt),
    fulfilled_at: iso(orders.fulfilledAt),
    created_at: iso(orders.createdAt),
    updated_at: iso(orders.updatedAt),
    kyc_profile_id: sql`${prefixed("kyp", orders.kycProfileId)}`,
    reservation_id: sql`${prefixed("res", orders.reservationId)}`,
  });
}

/**
 * The number's verification status (its own, or its profile's) and its profile's id, for the `numbers` row in scope:
 * what the numbers list joins (src/numbers/store.ts: listNumbers), as subqueries an event's JSON can hold.
 */
function numberKycData(): { kyc_status: SQL; kyc_profile_id: SQL } {
  const statusOf = (which: SQL) => sql`(SELECT ${kycVerifications.status} FROM ${kycVerifications} WHERE ${which})`;
  return {
    kyc_status: sql`coalesce(${statusOf(sql`${kycVerifications.numberId} = ${numbers.id}`)}, ${statusOf(sql`${kycVerifications.id} = ${numbers.kycProfileId}`)})`,
    kyc_profile_id: prefixed("kyp", numbers.kycProfileId),
  };
}

/** The Number item (toNumber) of the `numbers` row in scope. */
function numberItemData(): SQL {
  return jsonObject({
    number_id: numbers.id,
    phone_number: numbers.phoneNumber,
    country_code: numbers.countryCode,
    number_type: numbers.numberType,
    status: numbers.status,
    order_id: numbers.orderId,
    ...numberKycData(),
    created_at: iso(numbers.createdAt),
    updated_at: iso(numbers.updatedAt),
    released_at: iso(numbers.releasedAt),
    restorable_until: iso(numbers.restorableUntil),
    release_reason: numbers.releaseReason,
    suspended_at: iso(numbers.suspendedAt),
    suspension_reason: numbers.suspensionReason,
    release_protected: sql`json(CASE WHEN ${numbers.releaseProtected} THEN 'true' ELSE 'false' END)`,
    tags: sql`json(${numbers.tags})`,
    customer_reference: numbers.customerReference,
  });
}

/** The Number items of the numbers with these ids, ordered by phone number, as a JSON array. */
function numberItems(numberIds: readonly string[]): SQL {
  return sql`(SELECT json_group_array(json(${numberItemData()}) ORDER BY ${numbers.phoneNumber}) FROM ${numbers} WHERE ${inJsonList(numbers.id, numberIds)})`;
}

/**
 * `{order, numbers}` for an allocation: the order in scope and the numbers with these ids as the numbers list shows
 * them (toNumber), ordered by phone number as the allocation's answer is.
 */
export function allocationData(numberIds: readonly string[]): SQL {
  return jsonObject({ order: sql`json(${orderData()})`, numbers: sql`json(${numberItems(numberIds)})` });
}

/**
 * `{numbers}` of a number.* event: the numbers with these ids (at most NUMBERS_PER_NUMBER_EVENT, src/db/outbox.ts) as
 * they stand where the statement runs, ordered by phone number.
 */
export function numbersData(numberIds: readonly string[]): SQL {
  return jsonObject({ numbers: sql`json(${numberItems(numberIds)})` });
}

/** `{profile_id, number_ids}` of a profile's attach or detach: these numbers (bare ids), the profile an expression. */
export function attachedNumbersData(profileId: SQL, numberIds: readonly string[]): SQL {
  return jsonObject({ profile_id: profileId, number_ids: sql`json(${JSON.stringify(numberIds.map((id) => `num_${id}`))})` });
}

/** The document summary (as a verification lists it) of the `kyc_documents` row in scope. */
function documentSummary(): SQL {
  return jsonObject({
    id: prefixed("doc", kycDocuments.id),
    document_type: kycDocuments.documentType,
    filename: kycDocuments.filename,
    status: kycDocuments.status,
    rejection_reasons: sql`json(${kycDocuments.rejectionReasons})`,
    uploaded_at: iso(kycDocuments.uploadedAt),
  });
}

/** The fields a number's verification and a profile share (toVerificationFields), of the `kyc_verifications` row in scope. */
function verificationFields(): Record<string, AnyColumn | SQL> {
  const documents = sql`(SELECT json_group_array(json(${documentSummary()}) ORDER BY ${asc(kycDocuments.uploadedAt)}, ${asc(kycDocuments.id)}) FROM ${kycDocuments} WHERE ${eq(kycDocuments.kycId, kycVerifications.id)})`;
  return {
    status: kycVerifications.status,
    type: kycVerifications.type,
    address: jsonObject({
      address_line_1: kycVerifications.addressLine1,
      address_line_2: kycVerifications.addressLine2,
      city: kycVerifications.city,
      state_province: kycVerifications.stateProvince,
      postal_code: kycVerifications.postalCode,
      country: kycVerifications.country,
    }),
    company_name: kycVerifications.companyName,
    tax_id: kycVerifications.taxId,
    contact_person: kycVerifications.contactPerson,
    phone_number: kycVerifications.phoneNumber,
    email: kycVerifications.email,
    documents: sql`json(${documents})`,
    submitted_at: iso(kycVerifications.submittedAt),
    updated_at: iso(kycVerifications.updatedAt),
    reviewed_at: iso(kycVerifications.reviewedAt),
    rejection_reason: kycVerifications.rejectionReason,
    rejection_reasons: sql`json(${kycVerifications.rejectionReasons})`,
    expires_at: iso(kycVerifications.expiresAt),
  };
}

/** A number's own KYC verification (toVerification) of the `kyc_verifications` row in scope, documents oldest first. */
export function verificationData(): SQL {
  return jsonObject({
    id: prefixed("kyc", kycVerifications.id),
    number_id: prefixed("num", kycVerifications.numberId),
    profile_id: sql`NULL`,
    ...verificationFields(),
  });
}

/** The profile (toProfile) of the `kyc_verifications` row in scope, with the count of its numbers. */
export function profileData(): SQL {
  return jsonObject({
    id: prefixed("kyp", kycVerifications.id),
    name: kycVerifications.name,
    number_count: sql`(SELECT count(*) FROM ${kycProfileNumbers} WHERE ${kycProfileNumbers.profileId} = ${kycVerifications.id})`,
    ...verificationFields(),
  });
}

/** `{kyc_id, number_id, document}` for the `kyc_documents` row in scope (an upload or a delete). */
export function documentEventData(): SQL {
  return jsonObject({
    kyc_id: prefixed("kyc", kycDocuments.kycId),
    number_id: sql`(SELECT ${prefixed("num", kycVerifications.numberId)} FROM ${kycVerifications} WHERE ${eq(kycVerifications.id, kycDocuments.kycId)})`,
    document: sql`json(${documentSummary()})`,
  });
}

/** `{profile_id, document}` for the `kyc_documents` row in scope of a profile (an upload or a delete). */
export function profileDocumentEventData(): SQL {
  return jsonObject({ profile_id: prefixed("kyp", kycDocuments.kycId), document: sql`json(${documentSummary()})` });
}

/** `{webhook_endpoint_id}` for the test event of the `webhook_endpoints` row in scope. */
export function testEventData(endpointId: AnyColumn): SQL {
  return jsonObject({ webhook_endpoint_id: prefixed("we", endpointId) });
}

/**
 * The Reservation (toReservation) of the `reservations` row in scope, its status as written where the statement runs
 * (an event's statement stands after the change it reports).
 */
export function reservationData(): SQL {
  const phoneNumbers = sql`(SELECT json_group_array(${reservationNumbers.phoneNumber} ORDER BY ${reservationNumbers.phoneNumber}) FROM ${reservationNumbers} WHERE ${eq(reservationNumbers.reservationId, reservations.id)})`;
  return jsonObject({
    id: prefixed("res", reservations.id),
    status: reservations.status,
    country_code: reservations.countryCode,
    number_type: reservations.numberType,
    phone_numbers: sql`json(${phoneNumbers})`,
    expires_at: iso(reservations.expiresAt),
    hold_for_profile: prefixed("kyp", reservations.holdForProfile),
    order_id: reservations.orderId,
    created_at: iso(reservations.createdAt),
    updated_at: iso(reservations.updatedAt),
  });
}
