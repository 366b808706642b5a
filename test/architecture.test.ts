// The layers' rules, held by a test rather than by habit: http/ is plumbing (no feature's store, no webhooks), a store
// knows nothing of HTTP, a use case nothing of Hono, and pages reach storage only through stores and use cases. And the
// layout: no cycle among src/'s folders, lib/ db/ http/ ui/ below every feature, the portal and the console apart, no
// file over 600 lines, and one clock.
import { describe, expect, it } from "vitest";

/** Every source file's text, by path (vite reads them at build time: the test runs where there is no file system). */
const sources = import.meta.glob<string>("../src/**/*.{ts,tsx}", { query: "?raw", import: "default", eager: true });

function importsOf(text: string): string[] {
  return [...text.matchAll(/^import [^;]*?from "([^"]+)";/gms)].map((match) => match[1]!);
}

function filesUnder(folder: RegExp): [string, string[]][] {
  return Object.entries(sources)
    .filter(([path]) => folder.test(path))
    .map(([path, text]) => [path.replace("../src/", ""), importsOf(text)]);
}

function breaking(folder: RegExp, forbidden: RegExp): string[] {
  return filesUnder(folder).flatMap(([path, imports]) =>
    imports.filter((from) => forbidden.test(from)).map((from) => `${path} imports ${from}`),
  );
}

/** A source's path under src/ ("orders/store.ts"). */
function underSrc(path: string): string {
  return path.replace("../src/", "");
}

/** A relative import resolved against the importing file's path under src/; undefined when it leaves src/. */
function resolved(from: string, target: string): string | undefined {
  const parts = from.split("/").slice(0, -1);
  for (const part of target.split("/")) {
    if (part === "..") {
      if (parts.length === 0) return undefined;
      parts.pop();
    } else if (part !== ".") parts.push(part);
  }
  return parts.join("/");
}

/** A file's folder: the first folder under src/, or "(name)" for a file at src/'s top (env.ts is "(env)"). */
function folderOf(path: string): string {
  const [first, ...rest] = path.split("/");
  return rest.length > 0 ? first! : `(${first!.replace(/\.tsx?$/, "")})`;
}

/** Every import and re-export between two folders of src/, as "from -> to" of files. */
const crossings: { from: string; to: string; why: string }[] = Object.entries(sources).flatMap(([path, text]) => {
  const file = underSrc(path);
  const targets = [
    ...text.matchAll(/(?:import|export)\s[^'"]*?from\s+["'](\.{1,2}\/[^"']+)["']/g),
    ...text.matchAll(/import\s+["'](\.{1,2}\/[^"']+)["']/g),
  ].flatMap((match) => resolved(file, match[1]!) ?? []);
  return targets
    .map((target) => ({ from: folderOf(file), to: folderOf(target), why: `${file} -> ${target}` }))
    .filter(({ from, to }) => from !== to);
});

/** The folders each folder imports. */
function folderGraph(): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const { from, to } of crossings) {
    if (!graph.has(to)) graph.set(to, new Set());
    graph.set(from, (graph.get(from) ?? new Set()).add(to));
  }
  return graph;
}

/** The strongly connected components of more than one folder (Tarjan's algorithm): each is a cycle. */
function folderCycles(graph: Map<string, Set<string>>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (folder: string) => {
    index.set(folder, next);
    low.set(folder, next);
    next++;
    stack.push(folder);
    onStack.add(folder);
    for (const to of graph.get(folder) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(folder, Math.min(low.get(folder)!, low.get(to)!));
      } else if (onStack.has(to)) low.set(folder, Math.min(low.get(folder)!, index.get(to)!));
    }
    if (low.get(folder) !== index.get(folder)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== folder);
    if (component.length > 1) cycles.push(component.sort());
  };
  for (const folder of graph.keys()) if (!index.has(folder)) visit(folder);
  return cycles;
}

/** The folders below every feature; a file at src/'s top (env.ts) is neither. */
const BASE = ["lib", "db", "http", "ui"];

/** The imports from `folders` into any folder `allowed` refuses, as "file -> file". */
function crossingsFrom(folders: readonly string[], allowed: (to: string) => boolean): string[] {
  return crossings.filter(({ from, to }) => folders.includes(from) && !allowed(to)).map(({ why }) => why);
}

/** Source files over 600 lines. */
function oversized(): string[] {
  return Object.entries(sources)
    .filter(([, text]) => text.split("\n").length > 600)
    .map(([path]) => underSrc(path))
    .sort();
}

/** Being split section by section (issue 26); the list only shrinks. */
/**
 * The clocks: a request's (its context sets c.var.now, which Work.now, the guards and the pages read) and the
 * delivery consumer's (DeliveryDeps.now, which its tests replace). Scheduled jobs take the event's time.
 */
const ALLOWED_DATE_NOW = ["http/request-context.ts", "webhooks/delivery.ts"];

/** Files that call Date.now() outside a comment (a block comment opens a line; a line comment ends one). */
function callingDateNow(): string[] {
  return Object.entries(sources)
    .filter(([, text]) => /\bDate\.now\(\)/.test(text.replace(/^\s*\/\*[\s\S]*?\*\//gm, "").replace(/\/\/.*$/gm, "")))
    .map(([path]) => underSrc(path))
    .sort();
}

describe("the layout", () => {
  it("reads imports and re-exports between folders", () => {
    // db/schema.ts only re-exports: seen here, its tables' files are part of the graph.
    expect(crossings.map(({ why }) => why)).toContain("orders/store.ts -> db/schema.ts");
    expect(folderGraph().get("(env)")).toContain("db");
  });

  it("has no cycle among src/'s folders", () => {
    expect(folderCycles(folderGraph())).toEqual([]);
  });

  it("keeps lib/ to itself", () => {
    expect(crossingsFrom(["lib"], (to) => to === "lib")).toEqual([]);
  });

  it("keeps db/, http/ and ui/ below every feature, the portal and the console", () => {
    expect(crossingsFrom(["db", "http", "ui"], (to) => BASE.includes(to) || to.startsWith("("))).toEqual([]);
  });

  it("keeps the console and the portal apart", () => {
    expect(crossingsFrom(["console"], (to) => to !== "portal")).toEqual([]);
    expect(crossingsFrom(["portal"], (to) => to !== "console")).toEqual([]);
  });

  it("keeps every source file within 600 lines", () => {
    expect(oversized()).toEqual([]);
  });

  it("reads the wall clock only where it is allowed", () => {
    expect(callingDateNow()).toEqual(ALLOWED_DATE_NOW);
  });
});

describe("the layers", () => {
  it("reads the sources", () => {
    expect(Object.keys(sources).length).toBeGreaterThan(50);
  });

  it("keep http/ to HTTP plumbing: it imports no feature, only lib/, db/'s infrastructure and the Env types", () => {
    expect(breaking(/\/src\/http\//, /^\.\.\/(?!lib\/|db\/(?!.*store)|env\.ts$)/)).toEqual([]);
  });

  it("keep every store free of HTTP and of the wire format", () => {
    expect(breaking(/(^|\/|-)store\.ts$/, /(\/http\/|^hono|\/schemas\.ts$)/)).toEqual([]);
  });

  it("keep every use case free of Hono, so each front end can call it", () => {
    expect(breaking(/\/use-cases\.ts$/, /(^hono|^@hono|\/http\/)/)).toEqual([]);
  });

  it("leave the global fetch to the webhook sender and the Access key reader, however it is named", () => {
    // Biome refuses a bare fetch elsewhere (biome.jsonc); this also catches globalThis.fetch and self.fetch.
    const allowed = ["../src/webhooks/delivery.ts", "../src/staff/access.ts"];
    const calling = Object.entries(sources)
      .filter(([path, text]) => !allowed.includes(path) && /\b(?:globalThis|self)\s*(?:\.\s*fetch|\[\s*["'`]fetch)/.test(text))
      .map(([path]) => path);
    expect(calling).toEqual([]);
  });

  it("keep the pages off SQL: no page imports drizzle", () => {
    expect(breaking(/\/src\/(portal|console|ui)\//, /^drizzle-orm/)).toEqual([]);
  });
});
