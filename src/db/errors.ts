// Recognises the storage errors that have a meaning for clients (a duplicate is a 409, not a 500).
import { BATCH_ASSERTION_CONSTRAINT } from "./schema.ts";

/** Whether the error, or one it wraps, says `pattern`: D1 reports SQLite's message, sometimes wrapped by Drizzle in `cause`. */
function reports(error: unknown, pattern: RegExp): boolean {
  for (let current: unknown = error; current instanceof Error; current = current.cause) {
    if (pattern.test(current.message)) return true;
  }
  return false;
}

export function isUniqueViolation(error: unknown): boolean {
  return reports(error, /UNIQUE constraint failed|SQLITE_CONSTRAINT_PRIMARYKEY/i);
}

const FAILED_ASSERTION = new RegExp(`CHECK constraint failed: ${BATCH_ASSERTION_CONSTRAINT}`);

/** A batch that a failed assertion rolled back (see batchAssertions in the schema). */
export function isFailedBatchAssertion(error: unknown): boolean {
  return reports(error, FAILED_ASSERTION);
}
