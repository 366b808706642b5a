// Formats errors for logs, without customer data.

/** How Drizzle's failed-query message ends: the statement's values, which are customers' data (addresses, notes). */
const QUERY_PARAMS = /\nparams: [\s\S]*$/;

/**
 * The error and every error it wraps (Drizzle keeps D1's error in `cause`),
 * each by name, message and stack frames, with a failed query's values withheld: logs are no place for customer data.
 */
export function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const parts: string[] = [];
  for (let current: unknown = error; current instanceof Error; current = current.cause) {
    // V8's stack opens with "name: message" (values and all): only what follows it, the frames, is kept.
    const head = `${current.name}: ${current.message}`;
    const stack = current.stack ?? "";
    const frames = stack.startsWith(head) ? stack.slice(head.length) : "";
    parts.push(`${current.name}: ${current.message.replace(QUERY_PARAMS, "\nparams: (withheld)")}${frames}`);
  }
  return parts.join("\nCaused by: ");
}
