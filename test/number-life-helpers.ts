// What the number-life tests share.

/** The tenure fields of a number never released, suspended, tagged or protected: a new allocation's. */
export const UNTOUCHED_TENURE_FIELDS = {
  released_at: null,
  restorable_until: null,
  release_reason: null,
  suspended_at: null,
  suspension_reason: null,
  release_protected: false,
  tags: [],
  customer_reference: null,
} as const;
