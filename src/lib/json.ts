// Detects duplicate keys in JSON objects. JSON.parse keeps the last ({"role":"viewer","role":"admin"} is an admin), so
// a check reading the first would be fooled.

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;

/** An object or array being read: an object's keys so far and its current key, or an array's current index. */
interface Container {
  keys: Set<string> | undefined;
  at: string | number;
}

/** The index of the quote that closes a string whose text starts at `from` (one not escaped), or -1. */
function closingQuote(text: string, from: number): number {
  for (let at = text.indexOf('"', from); at !== -1; at = text.indexOf('"', at + 1)) {
    let backslashes = 0;
    while (text.charCodeAt(at - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return at;
  }
  return -1;
}

/** A JSON Pointer token (RFC 6901): ~ and / escaped. */
function pointerToken(token: string | number): string {
  return String(token).replaceAll("~", "~0").replaceAll("/", "~1");
}

/**
 * The JSON Pointer of the first key that a JSON text names a second time in the same object (keys compared as JSON.parse
 * decodes them, so "a" and "\u0061" are one key), or undefined when every object's keys are distinct. One pass, no
 * parse; on text that is not JSON it answers something or nothing and never throws (JSON.parse then refuses the text).
 */
export function duplicateKeyPointer(text: string): string | undefined {
  const open: Container[] = [];
  let expectingKey = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === QUOTE) {
      const end = closingQuote(text, i + 1);
      if (end === -1) return undefined;
      const container = open.at(-1);
      if (expectingKey && container?.keys) {
        const raw = text.slice(i + 1, end);
        let key = raw;
        if (raw.includes("\\")) {
          try {
            key = JSON.parse(`"${raw}"`) as string;
          } catch {
            return undefined;
          }
        }
        if (container.keys.has(key)) {
          return [...open.slice(0, -1).map((c) => c.at), key].map((token) => `/${pointerToken(token)}`).join("");
        }
        container.keys.add(key);
        container.at = key;
        expectingKey = false;
      }
      i = end;
    } else if (code === OPEN_OBJECT) {
      open.push({ keys: new Set(), at: "" });
      expectingKey = true;
    } else if (code === OPEN_ARRAY) {
      open.push({ keys: undefined, at: 0 });
      expectingKey = false;
    } else if (code === CLOSE_OBJECT || code === CLOSE_ARRAY) {
      open.pop();
      expectingKey = false;
    } else if (code === COMMA) {
      const container = open.at(-1);
      if (container?.keys) expectingKey = true;
      else if (container) container.at = (container.at as number) + 1;
    }
  }
  return undefined;
}
