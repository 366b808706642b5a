// CSV as RFC 4180 writes it: records separated by CRLF (or LF), fields by commas, a field in double quotes when it
// holds a comma, a quote (doubled) or a line break. Strict: a quote inside an unquoted field, text after a closing
// quote, or an unclosed quote is malformed, never guessed at.

export class MalformedCsv extends Error {
  override name = "MalformedCsv";
}

/**
 * The records of a CSV text (a leading byte order mark dropped, a final line break optional, blank last line
 * ignored), each a list of its fields; at most `maxRecords` of them, else MalformedCsv names the limit.
 */
export function parseCsv(text: string, maxRecords: number): string[][] {
  const input = text.startsWith("\uFEFF") ? text.slice(1) : text;
  const records: string[][] = [];
  let record: string[] = [];
  let field = "";
  let quoted = false;
  let closed = false;
  let at = 0;
  const line = () => records.length + 1;
  const endField = () => {
    record.push(field);
    field = "";
    quoted = false;
    closed = false;
  };
  const endRecord = () => {
    endField();
    if (records.length === maxRecords) throw new MalformedCsv(`more than ${maxRecords} lines`);
    records.push(record);
    record = [];
  };
  while (at < input.length) {
    const char = input[at]!;
    if (quoted && !closed) {
      if (char === '"') {
        if (input[at + 1] === '"') {
          field += '"';
          at += 2;
          continue;
        }
        closed = true;
      } else {
        field += char;
      }
      at++;
      continue;
    }
    if (char === ",") endField();
    else if (char === "\r" && input[at + 1] === "\n") {
      endRecord();
      at++;
    } else if (char === "\n") endRecord();
    else if (closed) throw new MalformedCsv(`line ${line()}: text after a closing quote`);
    else if (char === '"') {
      if (field !== "") throw new MalformedCsv(`line ${line()}: a quote inside an unquoted field`);
      quoted = true;
    } else if (char === "\r") throw new MalformedCsv(`line ${line()}: a carriage return without a line feed`);
    else field += char;
    at++;
  }
  if (quoted && !closed) throw new MalformedCsv(`line ${line()}: a quoted field is never closed`);
  // The last record, unless the text ended with its line break.
  if (field !== "" || record.length > 0 || quoted) endRecord();
  return records;
}
