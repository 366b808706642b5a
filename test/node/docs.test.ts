// The README and the guides stand alone and say what each block is: every link and path they name is in the project
// (a clone has nothing beside it), every fenced block names its language, and every shell example either runs (the
// examples' test runs it against `npm start`) or says why it does not. The lists the API guide calls complete are.
import { existsSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../../scripts/local-dev.ts";
import { AUDIT_ACTIONS } from "../../src/db/audit.ts";
import { PROBLEMS } from "../../src/lib/problem.ts";
import { docFiles, fencesOf, outputMismatch, readDoc, runnable } from "./markdown.ts";

/** The languages the docs' blocks are written in. */
const LANGUAGES = new Set(["sh", "text", "json", "ts"]);
/** The commands whose output a block may show besides an example's own (the examples' test runs both). */
const SHOWN_COMMANDS = new Set(["npm start", "npm run webhooks:listen"]);

/** The text outside fenced blocks, line by line (a block's lines blank, so line numbers stay). */
function prose(file: string): string[] {
  let inside = false;
  return readDoc(file)
    .split("\n")
    .map((line) => {
      const fence = /^\s*```/.test(line);
      if (fence) inside = !inside;
      return fence || inside ? "" : line;
    });
}

/** A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces as hyphens. */
function anchorOf(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, "")
    .replace(/ /g, "-");
}

/** The lines of a file's section under this heading, to the next heading of its level or above. */
function section(file: string, heading: string): string[] {
  const lines = prose(file);
  const start = lines.indexOf(heading);
  if (start === -1) throw new Error(`${file} has no heading "${heading}"`);
  const level = /^#+/.exec(heading)![0].length;
  const end = lines.findIndex((line, index) => index > start && (/^#+/.exec(line)?.[0].length ?? 7) <= level);
  return lines.slice(start + 1, end === -1 ? undefined : end);
}

function anchorsOf(file: string): Set<string> {
  return new Set(prose(file).flatMap((line) => /^#{1,6}\s+(.*)$/.exec(line)?.slice(1, 2).map(anchorOf) ?? []));
}

describe("the README and the guides", () => {
  const files = docFiles();

  it("link only to files and headings of the project", () => {
    const broken: string[] = [];
    for (const file of files) {
      prose(file).forEach((line, index) => {
        // Code spans are not links, e.g. a pattern's `](?:…)`.
        for (const [, target] of line.replace(/`[^`]*`/g, "").matchAll(/\]\(([^)\s]+)\)/g)) {
          if (/^[a-z]+:/.test(target!)) continue;
          const [where = "", anchor] = target!.split("#");
          const linked = where === "" ? path.join(ROOT, file) : path.resolve(path.dirname(path.join(ROOT, file)), where);
          const at = `${file}:${index + 1} ${target}`;
          if (!linked.startsWith(`${ROOT}${path.sep}`) || !existsSync(linked)) broken.push(`${at}: no such file in the project`);
          else if (anchor && linked.endsWith(".md") && !anchorsOf(path.relative(ROOT, linked)).has(anchor)) {
            broken.push(`${at}: no such heading`);
          }
        }
      });
    }
    expect(broken).toEqual([]);
  });

  it("name no path outside the project and no document it does not have", () => {
    const outside: string[] = [];
    for (const file of files) {
      readDoc(file)
        .split("\n")
        .forEach((line, index) => {
          const at = `${file}:${index + 1}`;
          for (const [reference] of line.matchAll(/(?:\.\.\/)+[\w.-]*/g)) {
            const resolved = path.resolve(path.dirname(path.join(ROOT, file)), reference);
            if (!resolved.startsWith(`${ROOT}${path.sep}`)) outside.push(`${at}: ${reference} is outside the project`);
            else if (!existsSync(resolved)) outside.push(`${at}: ${reference} is not in the project`);
          }
          for (const [name] of line.matchAll(/\b[A-Z][A-Z0-9_-]*\.md\b/g)) {
            if (!existsSync(path.join(ROOT, name)) && !existsSync(path.join(ROOT, "docs", name))) {
              outside.push(`${at}: ${name} is not in the project`);
            }
          }
        });
    }
    expect(outside).toEqual([]);
  });

  it("name the language of every fenced block", () => {
    const fences = files.flatMap(fencesOf);
    expect(fences.length).toBeGreaterThan(10);
    expect(fences.filter((f) => !LANGUAGES.has(f.lang)).map((f) => `${f.file}:${f.line} "${f.lang}"`)).toEqual([]);
  });

  it("say why of every shell example that is not run", () => {
    const unexplained = files
      .flatMap(fencesOf)
      .filter((f) => f.lang === "sh" && f.attrs.has("not-run"))
      .filter((f) => {
        const why = f.attrs.get("not-run");
        return typeof why !== "string" || why.trim().split(/\s+/).length < 3;
      });
    expect(unexplained.map((f) => `${f.file}:${f.line}`)).toEqual([]);
  });

  it("show an output only after a runnable example, or of a command the examples' test runs", () => {
    const misplaced: string[] = [];
    for (const file of files) {
      const fences = fencesOf(file);
      fences.forEach((fence, index) => {
        const output = fence.attrs.get("output");
        if (output === undefined) return;
        const before = fences[index - 1];
        const belongs =
          fence.lang === "text" &&
          (output === true
            ? before !== undefined && before.lang === "sh" && !before.attrs.has("not-run")
            : SHOWN_COMMANDS.has(output));
        if (!belongs) misplaced.push(`${file}:${fence.line}`);
      });
    }
    expect(misplaced).toEqual([]);
  });
});

describe("the shell examples", () => {
  it("read every value with `jq -e`, which fails where a field is missing (jq alone prints null and succeeds)", () => {
    const lenient = docFiles()
      .flatMap(fencesOf)
      .filter(runnable)
      .flatMap((fence) =>
        [...fence.body.matchAll(/\bjq((?:\s+-[A-Za-z]+)*)/g)]
          .filter(([, flags]) => !/-[A-Za-z]*e/.test(flags!))
          .map(([call]) => `${fence.file}:${fence.line} ${call}`),
      );
    expect(lenient).toEqual([]);
  });

  it("show outputs in which `…` stands for any text but null", () => {
    expect(outputMismatch('{"pending":…,"fulfilled":…}', '{"pending":3,"fulfilled":0}')).toBeUndefined();
    expect(outputMismatch('{"pending":…,"fulfilled":…}', '{"pending":3,"fulfilled":null}')).toContain("no line");
    expect(outputMismatch("…", "null")).toContain("no line");
    expect(outputMismatch('{"notes":null}', '{"notes":null}')).toBeUndefined();
  });
});

describe("the API guide", () => {
  it("lists every problem code with its status, as PROBLEMS has them", () => {
    const listed = section("docs/api.md", "## Errors").flatMap((line) => {
      const row = /^\| `([a-z_]+)` +\| (\d{3}) +\|/.exec(line);
      return row ? [[row[1]!, Number(row[2])] as const] : [];
    });
    const codes = Object.entries(PROBLEMS).map(([code, { status }]) => [code, status] as const);
    expect(listed).toEqual(codes);
  });

  it("lists every audit action, as AUDIT_ACTIONS has them", () => {
    const paragraph = section("docs/api.md", "### The audit log")
      .join("\n")
      .split("\n\n")
      .find((text) => text.startsWith("Every action there is"));
    const listed = [...(paragraph ?? "").matchAll(/`([a-z_]+\.[a-z_]+)`/g)].map((match) => match[1]);
    expect(listed).toEqual([...AUDIT_ACTIONS]);
  });
});
