// Recognises the storage errors that have a meaning for clients (a duplicate is a 409, not a 500).

/** D1 reports constraint failures as SQLite's message, sometimes wrapped by Drizzle in `cause`. */
export function isUniqueViolation(error: unknown): boolean {
  for (let current: unknown = error; current instanceof Error; current = current.cause) {
    if (/UNIQUE constraint failed|SQLITE_CONSTRAINT_PRIMARYKEY/i.test(current.message)) return true;
  }
  return false;
}
