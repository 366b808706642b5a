// Display text for stored enum values, used by API messages and both UIs.

/** A stored value as display text: "under_review" becomes "under review". */
export function words(value: string): string {
  return value.replaceAll("_", " ");
}

/** The same, capitalised, for a label or a choice: "Under review", "Individual". */
export function capitalised(value: string): string {
  const text = words(value);
  return text.charAt(0).toUpperCase() + text.slice(1);
}

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
