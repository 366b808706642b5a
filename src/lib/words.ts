// Stored values in words, for every text a person reads (the API's details, the portal's and the console's pages).
import type { EventType, KycType } from "../db/schema.ts";

/** A stored value for people: "under_review" reads "under review", "toll_free" "toll free". */
export function words(value: string): string {
  return value.replaceAll("_", " ");
}

/** The same, capitalised, for a label or a choice: "Under review", "Individual". */
export function capitalised(value: string): string {
  const text = words(value);
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** Who a verification is of, as a choice reads it. */
export const KYC_TYPE_WORDS: Record<KycType, string> = { individual: "A person", business: "A business" };

/** The same within a sentence: "a verification of a business". */
export const KYC_TYPE_NOUNS: Record<KycType, string> = { individual: "a person", business: "a business" };

const REGION_NAMES = new Intl.DisplayNames(["en"], { type: "region", fallback: "none" });

/** A country by its ISO 3166-1 alpha-2 code, in English ("DE" reads "Germany"); the code when it names none. */
export function countryName(code: string): string {
  try {
    return REGION_NAMES.of(code) ?? code;
  } catch {
    // Not a code at all (Intl refuses it): as it was written.
    return code;
  }
}

/** What each event type tells a receiver, in words (its identifier is what the API and the payloads carry). */
export const EVENT_TYPE_WORDS: Record<EventType, string> = {
  "order.created": "An order is placed",
  "order.updated": "An order is changed",
  "order.processing": "An order is being processed",
  "order.numbers_allocated": "Numbers are allocated to an order",
  "order.fulfilled": "An order is fulfilled",
  "order.cancelled": "An order is cancelled",
  "kyc.submitted": "A number's verification is submitted",
  "kyc.updated": "A number's verification is amended",
  "kyc.under_review": "A number's verification is under review",
  "kyc.approved": "A number's verification is approved",
  "kyc.rejected": "A number's verification is rejected",
  "kyc.document_uploaded": "A document is uploaded to a number's verification",
  "kyc.document_deleted": "A document is deleted from a number's verification",
  "kyc.deleted": "A number's verification is deleted",
  "kyc.expiring": "A number's verification expires soon",
  "kyc.expired": "A number's verification has expired",
  "kyc_profile.submitted": "A profile is created",
  "kyc_profile.updated": "A profile is amended or renamed",
  "kyc_profile.under_review": "A profile is under review",
  "kyc_profile.approved": "A profile is approved",
  "kyc_profile.rejected": "A profile is rejected",
  "kyc_profile.deleted": "A profile is deleted",
  "kyc_profile.document_uploaded": "A document is uploaded to a profile",
  "kyc_profile.document_deleted": "A document is deleted from a profile",
  "kyc_profile.numbers_attached": "Numbers are attached to a profile",
  "kyc_profile.numbers_detached": "Numbers are detached from a profile",
  "kyc_profile.expiring": "A profile expires soon",
  "kyc_profile.expired": "A profile has expired",
  "webhook.test": "A test event is sent from the portal or the API",
};
