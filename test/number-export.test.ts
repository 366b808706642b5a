// The numbers' CSV export: the route (not taken for a number's id), its header and file name, RFC 4180 fields with
// spreadsheet formulas neutralised, keyset pages in the list's order for every sort, and the cap on rows.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { DAY_MS } from "../src/lib/time.ts";
import { EXPORT_COLUMNS, exportNumbers } from "../src/numbers/export.ts";
import { toNumberListQuery } from "../src/numbers/schemas.ts";
import { NUMBER_SORT_KEYS } from "../src/numbers/store.ts";
import { allocateNumbers, bodyOf, createCustomer, problem, type TestCustomer, testWork } from "./helpers.ts";

type NumberItem = Record<(typeof EXPORT_COLUMNS)[number], unknown>;

/** RFC 4180: CRLF records, fields quoted when they hold `,`, `"`, CR or LF, a quote doubled inside quotes. */
function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ",") {
      record.push(field);
      field = "";
    } else if (ch === "\r" && text[i + 1] === "\n") {
      record.push(field);
      records.push(record);
      record = [];
      field = "";
      i++;
    } else field += ch;
  }
  expect(field, "the last record ends in CRLF").toBe("");
  expect(record).toEqual([]);
  return records;
}

/** A Number item as its CSV row reads (before formula neutralising). */
function cellsOf(item: NumberItem): string[] {
  return EXPORT_COLUMNS.map((column) => {
    const value = item[column];
    if (value === null) return "";
    if (Array.isArray(value)) return value.join(";");
    return String(value);
  });
}

const exportPath = (customer: TestCustomer, query = "") => `/api/customers/${customer.slug}/numbers/export${query}`;

async function listed(customer: TestCustomer, query: string): Promise<NumberItem[]> {
  return (await bodyOf<{ data: NumberItem[] }>(await customer.call(`/api/customers/${customer.slug}/numbers?limit=100&${query}`)))
    .data;
}

async function released(id: string) {
  const at = Date.UTC(2026, 10, 1);
  await env.DB.prepare(
    "UPDATE numbers SET status = 'released', released_at = ?, restorable_until = ?, release_reason = 'customer' WHERE id = ?",
  )
    .bind(at, at + 10 * DAY_MS, id)
    .run();
}

describe("numbers export", () => {
  it("answers the list's numbers as CSV with the header, the file name and every field as the API gives it", async () => {
    const customer = await createCustomer("export");
    const numbers = await allocateNumbers(customer, 3);
    const [a, b, c] = numbers.map((n) => n.number_id) as [string, string, string];
    const patched = await customer.callJson("PATCH", `/api/customers/${customer.slug}/numbers/${a}`, {
      tags: ["-dash", "team:support"],
      customer_reference: '=HYPERLINK("x"), "quoted"',
      release_protected: true,
    });
    await bodyOf(patched);
    await bodyOf(
      await customer.callJson("PATCH", `/api/customers/${customer.slug}/numbers/${b}`, { customer_reference: "@home" }),
    );
    await released(c);

    const before = new Date().toISOString().slice(0, 10);
    const answer = await customer.call(exportPath(customer, "?sort_by=phone_number&sort_order=asc"));
    const after = new Date().toISOString().slice(0, 10);
    expect(answer.status).toBe(200);
    expect(answer.headers.get("Content-Type")).toBe("text/csv; charset=utf-8");
    const disposition = answer.headers.get("Content-Disposition");
    expect([before, after].map((day) => `attachment; filename="numbers-${customer.slug}-${day}.csv"`)).toContain(disposition);
    const [header, ...rows] = parseCsv(await answer.text());
    expect(header?.join(",")).toBe(
      "number_id,phone_number,country_code,number_type,status,order_id,kyc_status,kyc_profile_id,created_at,updated_at,released_at,restorable_until,release_reason,suspended_at,suspension_reason,release_protected,tags,customer_reference",
    );
    const items = await listed(customer, "sort_by=phone_number&sort_order=asc");
    const neutralised = (cells: string[]) => cells.map((cell, i) => (i !== 1 && /^[=+\-@\t\r]/.test(cell) ? `'${cell}` : cell));
    expect(rows).toEqual(items.map((item) => neutralised(cellsOf(item))));
    const byId = new Map(rows.map((row) => [row[0], row]));
    expect(byId.get(a)?.slice(15)).toEqual(["true", "'-dash;team:support", `'=HYPERLINK("x"), "quoted"`]);
    expect(byId.get(b)?.[17]).toBe("'@home");
    expect(byId.get(c)?.slice(4, 5)).toEqual(["released"]);
    expect(byId.get(c)?.[10]).toBe("2026-11-01T00:00:00.000Z");
    // The phone number as it is, though it starts with +.
    expect(rows.map((row) => row[1])).toEqual(items.map((item) => item.phone_number));
  });

  it("takes the list's filters, refuses bad ones, and 404s for another account's slug", async () => {
    const customer = await createCustomer("export");
    const numbers = await allocateNumbers(customer, 2);
    await released(numbers[1]!.number_id);
    const rows = parseCsv(await (await customer.call(exportPath(customer, "?status=released"))).text());
    expect(rows.slice(1).map((row) => row[0])).toEqual([numbers[1]!.number_id]);
    const empty = parseCsv(await (await customer.call(exportPath(customer, "?tag=none"))).text());
    expect(empty).toHaveLength(1);
    await problem(
      await customer.call(exportPath(customer, "?released_from=2026-02-02&released_to=2026-02-01")),
      400,
      "validation_error",
    );
    await problem(await customer.call(exportPath(customer, "?sort_by=tags")), 400, "validation_error");
    const other = await createCustomer("export");
    await problem(await other.call(exportPath(customer)), 404, "not_found");
  });

  it("writes keyset pages in the list's order for every sort and direction, and refuses more rows than its cap", async () => {
    const customer = await createCustomer("export");
    const numbers = await allocateNumbers(customer, 5);
    await released(numbers[1]!.number_id);
    await released(numbers[3]!.number_id);
    for (const sortBy of NUMBER_SORT_KEYS) {
      for (const sortOrder of ["asc", "desc"] as const) {
        const query = `sort_by=${sortBy}&sort_order=${sortOrder}`;
        const expected = (await listed(customer, query)).map((item) => item.number_id);
        const q = toNumberListQuery({ sort_by: sortBy, sort_order: sortOrder });
        const exported = await exportNumbers(testWork(), customer.customerId, q, { pageRows: 2 });
        if (!exported.ok) throw exported.problem;
        const rows = parseCsv(await new Response(exported.value).text()).slice(1);
        expect(
          rows.map((row) => row[0]),
          query,
        ).toEqual(expected);
      }
    }
    const q = toNumberListQuery({ sort_by: "created_at", sort_order: "desc" });
    const refused = await exportNumbers(testWork(), customer.customerId, q, { maxRows: 4, pageRows: 2 });
    expect(refused.ok ? "exported" : refused.problem).toMatchObject({ code: "validation_error" });
    expect(refused.ok ? "" : refused.problem.message).toContain("narrow");
    const capped = await exportNumbers(
      testWork(),
      customer.customerId,
      { ...q, statuses: ["active"] },
      { maxRows: 3, pageRows: 2 },
    );
    expect(capped.ok).toBe(true);
  });
});
