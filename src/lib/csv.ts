// Strict RFC 4180 CSV: malformed quoting is an error, never guessed at.

export class MalformedCsv extends Error {
  override name = "MalformedCsv";
}

/** A text of more records than the reader takes. */
export class TooManyCsvRecords extends MalformedCsv {
  override name = "TooManyCsvRecords";
}

/**
 * The records of a CSV text (a leading byte order mark dropped, a final line break optional, blank lines at the end
 * ignored), each a list of its fields; at most `maxRecords` of them, else TooManyCsvRecords. A blank line before
 * another record is a record of one empty field, as RFC 4180 reads it.
 */
export function parseCsv(text: string, maxRecords: number): string[][] {
  const input = text.startsWith("\uFEFF") ? text.slice(1) : text;
  const records: string[][] = [];
  let record: string[] = [];
  let field = "";
  let quoted = false;
  let closed = false;
  let at = 0;
  // Blank lines read since the last record: records only if another one follows.
  let blankLines = 0;
  const line = () => records.length + blankLines + 1;
  const endField = () => {
    record.push(field);
    field = "";
    quoted = false;
    closed = false;
  };
  const push = (done: string[]) => {
    if (records.length === maxRecords) throw new TooManyCsvRecords(`more than ${maxRecords} records`);
    records.push(done);
  };
  const endRecord = () => {
    const blank = record.length === 0 && field === "" && !quoted;
    endField();
    if (blank) blankLines++;
    else {
      for (; blankLines > 0; blankLines--) push([""]);
      push(record);
    }
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
