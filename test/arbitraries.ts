// Generators for the property tests: values from a route's own zod schemas (through zod's JSON Schema of their input),
// hostile values of every kind, multipart forms with real files, and whole requests for a described operation. A
// request is generated as plain data (printed as the counterexample when a property fails) and built when it is sent.
import { type RouteConfig, z } from "@hono/zod-openapi";
import fc from "fast-check";
import type { DescribedOperation } from "./api-description.ts";
import { jpeg, pdf, png, ppm } from "./files.ts";

/** The parts of JSON Schema that zod writes for the routes' request schemas. */
interface JsonSchema {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  pattern?: string;
  format?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
}

/** The JSON Schema of what a zod schema accepts as input (transforms and refinements are not in it). */
function inputSchema(schema: unknown): JsonSchema {
  return z.toJSONSchema(schema as z.ZodType, { io: "input", unrepresentable: "any" }) as JsonSchema;
}

/** Calendar dates around now: some past, some future, a few far off. */
export const calendarDate = fc
  .date({ min: new Date("2000-01-01T00:00:00Z"), max: new Date("2099-12-31T00:00:00Z"), noInvalidDate: true })
  .map((d) => d.toISOString().slice(0, 10));

/** Addresses zod's email check accepts. */
const emailAddress = fc
  .tuple(fc.stringMatching(/^[a-z0-9]{1,12}$/), fc.stringMatching(/^[a-z0-9]{1,10}$/), fc.constantFrom("com", "example", "io"))
  .map(([local, domain, tld]) => `${local}@${domain}.${tld}`);

/** A value the schema describes (refinements aside), or one of `fields` for a property of that name. */
function conforming(schema: JsonSchema, fields: Record<string, fc.Arbitrary<unknown>> = {}): fc.Arbitrary<unknown> {
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives) return fc.oneof(...alternatives.map((s) => conforming(s, fields)));
  const types = Array.isArray(schema.type) ? schema.type : [schema.type ?? "string"];
  if (types.length > 1) return fc.oneof(...types.map((type) => conforming({ ...schema, type }, fields)));
  switch (types[0]) {
    case "null":
      return fc.constant(null);
    case "boolean":
      return fc.boolean();
    case "integer":
    case "number": {
      const min = schema.minimum ?? -1000;
      const max = Math.min(schema.maximum ?? 1_000_000, 1_000_000_000);
      // Mostly small values near the minimum, where the interesting states are, and the bounds themselves.
      return fc.oneof(fc.integer({ min, max: Math.min(min + 20, max) }), fc.integer({ min, max }), fc.constantFrom(min, max));
    }
    case "array":
      return fc.array(conforming(schema.items ?? {}, fields), {
        minLength: schema.minItems ?? 0,
        maxLength: Math.min(schema.maxItems ?? 4, 4),
      });
    case "object": {
      const properties = Object.entries(schema.properties ?? {});
      return fc.record(
        Object.fromEntries(
          properties.map(([name, property]) => {
            const own = fields[name];
            return [name, own ? fc.oneof({ arbitrary: own, weight: 3 }, conforming(property)) : conforming(property)];
          }),
        ),
        { requiredKeys: schema.required ?? [] },
      );
    }
    default:
      return stringOf(schema);
  }
}

function stringOf(schema: JsonSchema): fc.Arbitrary<string> {
  if (schema.format === "uuid") return fc.uuid({ version: 4 });
  if (schema.format === "email") return emailAddress;
  if (schema.format === "date") return calendarDate;
  if (schema.pattern) return fc.stringMatching(new RegExp(schema.pattern));
  const minLength = schema.minLength ?? 0;
  const maxLength = schema.maxLength ?? 60;
  return fc.oneof(
    { arbitrary: fc.string({ minLength, maxLength: Math.min(maxLength, 40) }), weight: 8 },
    { arbitrary: fc.string({ minLength, maxLength: Math.min(maxLength, 40), unit: "grapheme" }), weight: 2 },
    { arbitrary: fc.constant("x".repeat(maxLength)), weight: 1 },
  );
}

/** Text that breaks rules: control characters, lone surrogates, bidi overrides, look-alike digits, injection. */
const ODD_TEXT = [
  "",
  " ",
  "   padded   ",
  "\u0000",
  "a\u0000b",
  "\u0007\u001b[31m",
  "\uD800",
  "x\uDFFFy",
  "\u202Eevil\u202C",
  "\uFEFFbom",
  "\u200B",
  "𝕏𝕐ℤ",
  "e\u0301",
  "Ω≈ç√∫",
  "١٢٣",
  "１２３",
  "🏳️‍🌈",
  "\r\n",
  "\t",
  "<script>alert(1)</script>",
  "'; DROP TABLE orders; --",
  '" OR 1=1 --',
  "%00",
  "%s%n",
  "{{7*7}}",
  "../../etc/passwd",
  "null",
  "true",
  "0",
  "-1",
  "0x10",
  "1e3",
  "+1",
  " 1",
  "1.5",
  "NaN",
  "Infinity",
  "__proto__",
  "constructor",
  "toString",
];

const loneSurrogates = fc.string({
  unit: fc.oneof(
    fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c)),
    fc.constant("a"),
  ),
  minLength: 1,
  maxLength: 8,
});

/** Strings of any shape: odd text, any code point, lone surrogates, long ones. */
const hostileText: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.constantFrom(...ODD_TEXT), weight: 6 },
  // Built when first drawn: building it maps every code point (0.6 s), paid then only by the files that draw from it.
  { arbitrary: later(() => fc.string({ unit: "binary", maxLength: 30 })), weight: 3 },
  { arbitrary: loneSurrogates, weight: 1 },
  { arbitrary: fc.constantFrom(1001, 2049, 5000).map((n) => "y".repeat(n)), weight: 1 },
);

/** Values that break a schema: the wrong type, just past a bound, odd text. */
function hostileValue(schema: JsonSchema): fc.Arbitrary<unknown> {
  const past: unknown[] = [];
  if (schema.maxLength !== undefined) past.push("x".repeat(schema.maxLength + 1));
  if (schema.minimum !== undefined) past.push(schema.minimum - 1);
  if (schema.maximum !== undefined && schema.maximum < Number.MAX_SAFE_INTEGER) past.push(schema.maximum + 1);
  return fc.oneof(
    fc.constantFrom(null, true, false, 0, -1, 1.5, -0, 1e21, 2 ** 53 + 2, [], [1], {}, { nested: { deeper: [null] } }, "1"),
    ...(past.length > 0 ? [fc.constantFrom(...past)] : []),
    hostileText,
  );
}

/** A query or path value that breaks the parameter's rules (integers that are not plain decimal digits among them). */
function hostileParameter(schema: JsonSchema): fc.Arbitrary<string> {
  const past: string[] = ["0x10", "1e3", "+1", " 1", "01", "1.0", "-0", "99999999999999999999", "%", "a,b", ",", ",,"];
  if (schema.maxLength !== undefined) past.push("x".repeat(schema.maxLength + 1));
  if (schema.minimum !== undefined) past.push(String(schema.minimum - 1));
  if (schema.maximum !== undefined && schema.maximum < Number.MAX_SAFE_INTEGER) past.push(String(schema.maximum + 1));
  return fc.oneof(fc.constantFrom(...past), hostileText);
}

/** The files an upload may carry: real small ones of each type, and ones the checks must refuse. */
export const FILES = {
  pdf: { bytes: () => pdf(), extension: "pdf" },
  png300: { bytes: () => png({ x: ppm(300), y: ppm(300), unit: 1 }), extension: "png" },
  pngNoDensity: { bytes: () => png(), extension: "png" },
  png72: { bytes: () => png({ x: ppm(72), y: ppm(72), unit: 1 }), extension: "png" },
  jpeg300: { bytes: () => jpeg({ jfif: { units: 1, x: 300, y: 300 } }), extension: "jpg" },
  jpegExif72: { bytes: () => jpeg({ exif: { x: 72, y: 72, unit: 2 } }), extension: "jpeg" },
  pdfHeaderOnly: { bytes: () => new TextEncoder().encode("%PDF-"), extension: "pdf" },
  executable: { bytes: () => new Uint8Array([0x4d, 0x5a, 0x90, 0x00, 0x03, 0x00, 0x00, 0x00]), extension: "pdf" },
  empty: { bytes: () => new Uint8Array(), extension: "pdf" },
} as const satisfies Record<string, { bytes: () => Uint8Array; extension: string }>;
export type FileKind = keyof typeof FILES;

type FormPart = { name: string; text: string } | { name: string; file: FileKind; filename: string };

type BodySpec =
  | { kind: "json"; value: unknown; contentType: string | null }
  | { kind: "text"; text: string; contentType: string | null }
  /** Bytes that are not UTF-8, in a JSON body. */
  | { kind: "bytes"; bytes: number[]; contentType: string | null }
  /** A JSON body of more than the 64 KiB limit (built when sent, so a failure does not print it). */
  | { kind: "oversized"; contentType: string }
  /** JSON nested `depth` deep (built when sent). */
  | { kind: "nested"; shape: "object" | "array"; depth: number }
  | { kind: "form"; parts: FormPart[] };

/** One generated request: plain data, built by `requestInit` with the credential of the operation's audience. */
export interface RequestSpec {
  operationId: string;
  method: string;
  /** The path with its parameters, percent-encoded (or raw, for malformed encodings). */
  path: string;
  /** "" or "?…". */
  query: string;
  headers: Record<string, string>;
  /** Send an API key as X-API-Key rather than as a Bearer token. */
  apiKeyHeader: boolean;
  body?: BodySpec;
}

/** Values of the path, query and body by name: the accounts' own ids, other accounts', catalog pairs, and so on. */
export interface Pools {
  params: Record<string, fc.Arbitrary<string>>;
  query: Record<string, fc.Arbitrary<string>>;
  fields: Record<string, fc.Arbitrary<unknown>>;
}

/** Percent-encodes a path segment; a lone surrogate (which encodeURIComponent refuses) goes as its raw UTF-8 bytes. */
function encodeSegment(value: string): string {
  try {
    return encodeURIComponent(value);
  } catch {
    return [...value]
      .map((ch) => {
        const code = ch.charCodeAt(0);
        if (code < 0xd800 || code > 0xdfff) return encodeURIComponent(ch);
        return `%${(0xe0 | (code >> 12)).toString(16)}%${(0x80 | ((code >> 6) & 0x3f)).toString(16)}%${(0x80 | (code & 0x3f)).toString(16)}`;
      })
      .join("");
  }
}

/** Malformed percent-encodings, sent as they are. */
const RAW_SEGMENTS = ["%", "%zz", "%FF", "%C0%AE%C0%AE", "%2F", "a%2Fb", "%00", "%E2%80%AE"];

/** Segments that would leave the route (empty, "." and ".."), which are not this operation's requests. */
const leavesRoute = (value: string) => /^\.{0,2}$/.test(value);

function pathParameter(name: string, schema: JsonSchema, pools: Pools): fc.Arbitrary<string> {
  const plain = fc
    .oneof(
      ...(pools.params[name] ? [{ arbitrary: pools.params[name], weight: 12 }] : []),
      { arbitrary: conforming(schema).map(String), weight: 3 },
      { arbitrary: hostileParameter(schema), weight: 3 },
    )
    .filter((value) => !leavesRoute(value))
    .map(encodeSegment);
  return fc.oneof({ arbitrary: plain, weight: 20 }, fc.constantFrom(...RAW_SEGMENTS));
}

function queryString(schema: JsonSchema | undefined, pools: Pools): fc.Arbitrary<string> {
  const properties = Object.entries(schema?.properties ?? {});
  const values = properties.map(([name, property]) =>
    fc.option(
      fc.oneof(
        ...(pools.query[name] ? [{ arbitrary: pools.query[name], weight: 4 }] : []),
        { arbitrary: conforming(property).map(String), weight: 4 },
        { arbitrary: hostileParameter(property), weight: 2 },
      ),
      { freq: 2, nil: undefined },
    ),
  );
  const extras = fc.array(fc.constantFrom("unknown=1", "page=1&page=2", "limit=%FF", "search=%00", "=", "&&", "sort_by"), {
    maxLength: 1,
  });
  return fc.tuple(fc.tuple(...values), extras).map(([chosen, extra]) => {
    const params = new URLSearchParams();
    chosen.forEach((value, i) => {
      const name = properties[i]?.[0];
      if (value !== undefined && name !== undefined) params.set(name, value);
    });
    const text = [params.toString(), ...extra].filter(Boolean).join("&");
    return text === "" ? "" : `?${text}`;
  });
}

const UNKNOWN_FIELDS = [
  "status",
  "id",
  "customer_id",
  "fulfilled_quantity",
  "order_number",
  "verification_type",
  "__proto__",
  "x",
];

/** A JSON body: mostly what the schema describes, else one bad field, an unknown field, a missing one, or no JSON. */
function jsonBody(schema: JsonSchema, pools: Pools): fc.Arbitrary<BodySpec> {
  const valid = conforming(schema, pools.fields).map((value) => value as Record<string, unknown>);
  const properties = Object.entries(schema.properties ?? {});
  const json = (value: unknown, contentType: string | null = "application/json"): BodySpec => ({
    kind: "json",
    value,
    contentType,
  });
  const variants: fc.WeightedArbitrary<BodySpec>[] = [
    { arbitrary: valid.map((value) => json(value)), weight: 10 },
    {
      arbitrary: fc
        .tuple(valid, fc.constantFrom(...UNKNOWN_FIELDS), hostileValue({}))
        .map(([value, name, extra]) => json({ ...value, [name]: extra })),
      weight: 1,
    },
    { arbitrary: hostileValue({}).map((value) => json(value)), weight: 1 },
    {
      arbitrary: fc
        .constantFrom("", "{", '{"a":', "\uFEFF{}", "[]", '"text"', "{}{}", '{"quantity":1,"quantity":100000}')
        .map((text): BodySpec => ({ kind: "text", text, contentType: "application/json" })),
      weight: 1,
    },
    {
      arbitrary: fc
        .tuple(fc.constantFrom("object" as const, "array" as const), fc.constantFrom(100, 5000, 20_000))
        .map(([shape, depth]): BodySpec => ({ kind: "nested", shape, depth })),
      weight: 1,
    },
    {
      arbitrary: fc.constant<BodySpec>({
        kind: "bytes",
        bytes: [0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d],
        contentType: "application/json",
      }),
      weight: 1,
    },
    { arbitrary: fc.constant<BodySpec>({ kind: "oversized", contentType: "application/json" }), weight: 1 },
    {
      arbitrary: fc
        .tuple(
          valid,
          fc.constantFrom(
            null,
            "text/plain",
            "application/json; charset=utf-16",
            "application/x-www-form-urlencoded",
            "multipart/form-data",
          ),
        )
        .map(([value, contentType]) => json(value, contentType)),
      weight: 1,
    },
  ];
  if (properties.length > 0) {
    variants.push(
      {
        arbitrary: fc
          .tuple(valid, fc.constantFrom(...properties))
          .chain(([value, [name, property]]) => hostileValue(property).map((bad) => json({ ...value, [name]: bad }))),
        weight: 5,
      },
      {
        arbitrary: fc.tuple(valid, fc.constantFrom(...properties.map(([name]) => name))).map(([value, name]) => {
          const { [name]: _, ...rest } = value;
          return json(rest);
        }),
        weight: 1,
      },
    );
  }
  return fc.oneof(...variants);
}

const FILENAMES = [
  "",
  "noextension",
  ".pdf",
  "scan.exe",
  "scan.pdf.exe",
  "../../etc/passwd.pdf",
  "résumé 📄.pdf",
  "a\u0000b.pdf",
  "\u202Efdp.exe",
  `${"n".repeat(300)}.pdf`,
  "SCAN.PDF",
  "photo.PNG",
  "x.jpeg",
  "y.jpg",
];

/** A multipart upload: a file (real or refused bytes, right or wrong name) and the form's fields, some broken. */
function formBody(schema: JsonSchema): fc.Arbitrary<BodySpec> {
  const fields = Object.entries(schema.properties ?? {}).filter(([, property]) => property.format !== "binary");
  const filePart = fc
    .tuple(fc.constantFrom(...(Object.keys(FILES) as FileKind[])), fc.nat(9))
    .chain(([file, odds]) =>
      (odds < 7 ? fc.constant(`document.${FILES[file].extension}`) : fc.constantFrom(...FILENAMES)).map(
        (filename): FormPart => ({ name: "file", file, filename }),
      ),
    );
  const textParts = fields.map(([name, property]) =>
    fc.option(
      fc
        .oneof({ arbitrary: conforming(property).map(String), weight: 6 }, { arbitrary: hostileText, weight: 1 })
        .map((text): FormPart => ({ name, text })),
      { freq: 4, nil: undefined },
    ),
  );
  const extraPart = fc.oneof(
    fc.constantFrom(...UNKNOWN_FIELDS, "file").map((name): FormPart => ({ name, text: "extra" })),
    filePart.map((part): FormPart => ({ ...part, name: "description" })),
    filePart,
  );
  const form = fc
    .tuple(fc.option(filePart, { freq: 10, nil: undefined }), fc.tuple(...textParts), fc.array(extraPart, { maxLength: 1 }))
    .map(
      ([file, texts, extras]): BodySpec => ({
        kind: "form",
        parts: [file, ...texts, ...extras].filter((part): part is FormPart => part !== undefined),
      }),
    );
  return fc.oneof(
    { arbitrary: form, weight: 12 },
    fc.constant<BodySpec>({ kind: "json", value: { document_type: "identity" }, contentType: "application/json" }),
    fc.constant<BodySpec>({ kind: "text", text: "--x\r\ngarbage", contentType: "multipart/form-data; boundary=x" }),
    fc.constant<BodySpec>({ kind: "text", text: "", contentType: "multipart/form-data" }),
  );
}

function bodyOf(route: RouteConfig, pools: Pools): fc.Arbitrary<BodySpec | undefined> {
  const content = route.request?.body?.content ?? {};
  const schemaOf = (mediaType: string) => {
    const media = content[mediaType];
    return media && "schema" in media ? media.schema : undefined;
  };
  // A route that reads its own body describes it with a plain JSON Schema (the upload's form, the stock import).
  const described = (schema: unknown) => (isZodSchema(schema) ? inputSchema(schema) : (schema as JsonSchema));
  const jsonSchema = schemaOf("application/json");
  const json = jsonSchema === undefined ? undefined : jsonBody(described(jsonSchema), pools);
  if (schemaOf("text/csv") !== undefined) return json ? fc.oneof(json, csvBody(pools)) : csvBody(pools);
  if (json) return json;
  const formSchema = schemaOf("multipart/form-data");
  if (formSchema) return formBody(described(formSchema));
  return fc.constant(undefined);
}

function isZodSchema(schema: unknown): schema is z.ZodType {
  return typeof schema === "object" && schema !== null && "safeParse" in schema;
}

/** The stock's CSV: its header and rows from the pools, or what a reader must refuse (another header, a short row). */
function csvBody(pools: Pools): fc.Arbitrary<BodySpec> {
  const cell = (name: string) => (pools.fields[name] ?? fc.string()).map((value) => String([value].flat()[0] ?? ""));
  const row = fc.tuple(cell("phone_numbers"), cell("country_code"), cell("number_type")).map((cells) => cells.join(","));
  const header = fc.oneof(
    { arbitrary: fc.constant("phone_number,country_code,number_type"), weight: 8 },
    fc.constantFrom("number,country,type", "phone_number,country_code", ""),
  );
  const rows = fc.array(fc.oneof({ arbitrary: row, weight: 8 }, fc.constantFrom("+1", '"unclosed', "a,b,c,d")), {
    maxLength: 6,
  });
  return fc
    .tuple(header, rows, fc.constantFrom("\n", "\r\n"))
    .map(
      ([first, rest, newline]): BodySpec => ({ kind: "text", text: [first, ...rest, ""].join(newline), contentType: "text/csv" }),
    );
}

/** Headers anyone may send: request ids of any shape, D1 bookmarks (malformed, or well formed but unknown), ETags. */
const optionalHeaders = fc.record(
  {
    "X-Request-Id": fc.oneof(
      fc.stringMatching(/^[A-Za-z0-9._:-]{1,140}$/),
      fc.constantFrom("", " ", "a b", "a/b", "x".repeat(129)),
    ),
    "x-d1-bookmark": fc.constantFrom(
      "not-a-bookmark",
      `00000000-00000000-00000000-${"0".repeat(32)}`,
      `ffffffff-ffffffff-ffffffff-${"f".repeat(32)}`,
    ),
    "If-None-Match": fc.constantFrom("*", '"x"', 'W/"x"', "garbage, *"),
  },
  { requiredKeys: [] },
);

/** An arbitrary built when first drawn from: for what draws on data a beforeAll makes (test.prop takes its arbitraries first). */
export function later<T>(build: () => fc.Arbitrary<T>): fc.Arbitrary<T> {
  let built: fc.Arbitrary<T> | undefined;
  return fc.constant(null).chain(() => {
    built ??= build();
    return built;
  });
}

/** Requests for one operation: path, query, headers and body from its route's schemas and the pools, valid or not. */
export function requestFor(operation: DescribedOperation, pools: Pools): fc.Arbitrary<RequestSpec> {
  const request = operation.route.request;
  const params = Object.entries(request?.params ? (inputSchema(request.params).properties ?? {}) : {});
  const pathValues = fc.tuple(...params.map(([name, schema]) => pathParameter(name, schema, pools)));
  const query = request?.query ? queryString(inputSchema(request.query), pools) : fc.constant("");
  // Unusual headers on one request in ten: a malformed bookmark answers 400 before anything else.
  const headers = fc.oneof({ arbitrary: fc.constant({}), weight: 9 }, optionalHeaders);
  return fc
    .tuple(pathValues, query, headers, fc.boolean(), bodyOf(operation.route, pools))
    .map(([values, queryText, extraHeaders, apiKeyHeader, body]) => {
      let index = 0;
      const path = operation.path.replace(/\{\w+\}/g, () => values[index++] ?? "");
      return {
        operationId: operation.operationId,
        method: operation.method,
        path,
        query: queryText,
        headers: extraHeaders as Record<string, string>,
        apiKeyHeader,
        ...(body ? { body } : {}),
      };
    });
}

function formData(parts: FormPart[]): FormData {
  const form = new FormData();
  for (const part of parts) {
    if ("file" in part)
      form.append(part.name, new File([FILES[part.file].bytes()], part.filename, { type: "application/octet-stream" }));
    else form.append(part.name, part.text);
  }
  return form;
}

/** The fetch init of a generated request, with the credential's headers. */
export function requestInit(spec: RequestSpec, credential: Record<string, string>): RequestInit {
  const headers = new Headers({ ...spec.headers, ...credential });
  const body = spec.body;
  if (!body) return { method: spec.method, headers };
  if (body.kind === "form") return { method: spec.method, headers, body: formData(body.parts) };
  if (body.kind === "nested") {
    headers.set("Content-Type", "application/json");
    const [open, close] = body.shape === "object" ? ['{"a":', "}"] : ["[", "]"];
    return { method: spec.method, headers, body: `${open.repeat(body.depth)}1${close.repeat(body.depth)}` };
  }
  if (body.contentType !== null) headers.set("Content-Type", body.contentType);
  switch (body.kind) {
    case "json":
      return { method: spec.method, headers, body: JSON.stringify(body.value) ?? "" };
    case "text":
      return { method: spec.method, headers, body: body.text };
    case "bytes":
      return { method: spec.method, headers, body: new Uint8Array(body.bytes) };
    case "oversized":
      return { method: spec.method, headers, body: JSON.stringify({ notes: "n".repeat(70_000) }) };
  }
}
