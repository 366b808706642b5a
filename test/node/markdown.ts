// The README and the guides as the docs' tests read them: their fenced blocks with what each block's info string says
// about it, and the output a block shows, matched against what really came out.
//
// An info string is the block's language, then attributes:
//   ```sh                      a shell example: the tests run it against `npm start`; it must exit 0 and print what
//                              the block after it shows (nothing, when none does)
//   ```sh not-run="why"        a shell example the tests cannot run, and why (a deploy, a command that runs until stopped)
//   ```text output             what the runnable shell example before it prints
//   ```text output="command"   what that command prints (`npm start`; `npm run webhooks:listen` while the example
//                              before it runs)
// `…` in a shown output stands for any text without `null`: a field read by a wrong name (jq prints null) never matches.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { ROOT } from "../../scripts/local-dev.ts";

/** The port the docs' examples name: the tests' own instance answers on another. */
const DOCS_PORT = 8787;

export interface Fence {
  /** The file, relative to the project's root. */
  file: string;
  /** The line of the opening fence, from 1. */
  line: number;
  lang: string;
  attrs: Map<string, string | true>;
  body: string;
}

/** README.md, then the guides in docs/ in name order. */
export function docFiles(): string[] {
  const guides = readdirSync(path.join(ROOT, "docs"))
    .filter((name) => name.endsWith(".md"))
    .sort();
  return ["README.md", ...guides.map((name) => `docs/${name}`)];
}

export function readDoc(file: string): string {
  return readFileSync(path.join(ROOT, file), "utf8");
}

function attributes(text: string): Map<string, string | true> {
  const attrs = new Map<string, string | true>();
  for (const [, name, value] of text.matchAll(/([a-z][a-z-]*)(?:="([^"]*)")?/g)) attrs.set(name!, value ?? true);
  return attrs;
}

/** The fenced blocks of a Markdown file, in order (a fence may be indented, as in a list item). */
export function fencesOf(file: string): Fence[] {
  const fences: Fence[] = [];
  let open: { line: number; indent: string; info: string; body: string[] } | undefined;
  readDoc(file)
    .split("\n")
    .forEach((text, index) => {
      const fence = /^(\s*)```(.*)$/.exec(text);
      if (!open) {
        if (fence) open = { line: index + 1, indent: fence[1]!, info: fence[2]!.trim(), body: [] };
        return;
      }
      if (fence && fence[2]!.trim() === "") {
        const [lang = "", ...rest] = open.info.split(/\s+/);
        fences.push({ file, line: open.line, lang, attrs: attributes(rest.join(" ")), body: open.body.join("\n") });
        open = undefined;
        return;
      }
      open.body.push(text.startsWith(open.indent) ? text.slice(open.indent.length) : text);
    });
  return fences;
}

export function runnable(fence: Fence): boolean {
  return fence.lang === "sh" && !fence.attrs.has("not-run");
}

/** A shell example as it runs against the instance on `port`: the docs name 8787. */
export function onPort(script: string, port: number): string {
  return script.replaceAll(`localhost:${DOCS_PORT}`, `localhost:${port}`);
}

function lines(text: string): string[] {
  const all = text.split("\n").map((line) => line.replace(/\s+$/, ""));
  while (all.length > 0 && all.at(-1) === "") all.pop();
  return all;
}

/** Text of any length that holds no `null`. */
const ANY_BUT_NULL = "(?:(?!null).)*";

function linePattern(shown: string): RegExp {
  return new RegExp(
    `^${shown
      .split("…")
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
      .join(ANY_BUT_NULL)}$`,
  );
}

/**
 * Where the actual output differs from the shown one (undefined when it matches): line by line, `…` standing for any
 * text without `null`; `unordered` takes the lines in any order.
 */
export function outputMismatch(shown: string, actual: string, { unordered = false } = {}): string | undefined {
  const expected = lines(shown);
  const got = lines(actual);
  const report = (why: string) => `${why}\n--- shown\n${expected.join("\n")}\n--- actual\n${got.join("\n")}`;
  if (got.length !== expected.length) return report(`${got.length} lines where the doc shows ${expected.length}`);
  const left = [...got];
  for (const [index, line] of expected.entries()) {
    const pattern = linePattern(line);
    const at = unordered ? left.findIndex((candidate) => pattern.test(candidate)) : pattern.test(left[index]!) ? index : -1;
    if (at === -1) return report(`no line of the output is like the shown line ${index + 1}: ${line}`);
    if (unordered) left.splice(at, 1);
  }
  return undefined;
}

/** The first line of `actual` where the shown lines begin, and the lines from there on, as many as are shown. */
export function windowOf(shown: string, actual: string): string {
  const [first = ""] = lines(shown);
  const got = lines(actual);
  const start = got.findIndex((line) => linePattern(first).test(line));
  return start === -1 ? "" : got.slice(start, start + lines(shown).length).join("\n");
}
