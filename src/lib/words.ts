// Stored values in words, for every text a person reads (the API's details, the portal's and the console's pages).
import type { KycType } from "../db/schema.ts";

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
