// The layers' rules, held by a test rather than by habit: http/ is plumbing (no feature's store, no webhooks), a store
// knows nothing of HTTP, a use case nothing of Hono, and pages reach storage only through stores and use cases.
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
