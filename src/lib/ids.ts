// Public identifiers: a resource's uuid, shown with its type prefix (num_, kyc_, doc_).

export type IdPrefix = "num" | "kyc" | "doc";

export function withPrefix(prefix: IdPrefix, id: string): string {
  return `${prefix}_${id}`;
}
