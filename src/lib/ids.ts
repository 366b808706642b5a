// Public identifiers: a uuid with a type prefix (num_, kyc_, kyp_, doc_, evt_, we_, whd_).

export type IdPrefix = "num" | "kyc" | "kyp" | "doc" | "evt" | "we" | "whd" | "res";

export function withPrefix(prefix: IdPrefix, id: string): string {
  return `${prefix}_${id}`;
}
