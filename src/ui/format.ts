// Formatting of times, counts and list query strings for pages.

/** A time to the minute, "2026-11-21 09:30 UTC", from stored milliseconds or ISO text; a dash for none. */
export function dateTime(time: number | string | null): string {
  return time === null ? "—" : `${new Date(time).toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

/** A calendar day, "2026-11-21" (UTC); a dash for none. */
export function date(time: number | string | null): string {
  return time === null ? "—" : new Date(time).toISOString().slice(0, 10);
}

/** "1 key", "3 keys"; `many` for the irregular ("deliveries"). */
export function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}

/**
 * The current query string with some parameters replaced (undefined removes one); page goes back to 1, which, the
 * default, the address leaves out (as a list page's tidy address does: src/ui/forms.tsx, listFilters).
 */
export function withQuery(current: Record<string, string>, changes: Record<string, string | undefined>): string {
  const next = new URLSearchParams({ ...current });
  next.delete("page");
  for (const [name, value] of Object.entries(changes)) {
    if (value === undefined || (name === "page" && value === "1")) next.delete(name);
    else next.set(name, value);
  }
  const text = next.toString();
  return text ? `?${text}` : "";
}

/**
 * What a page says after the redirect that led to it (`?done=…`): the message of that key, only if it is one of
 * `messages`' own (so `?done=constructor` says nothing).
 */
export function doneMessage(messages: Readonly<Record<string, string>>, key: string | undefined): string | undefined {
  return key !== undefined && Object.hasOwn(messages, key) ? messages[key] : undefined;
}
