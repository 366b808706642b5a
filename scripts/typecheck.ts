// `npm run typecheck`: tsc over the Worker and its tests (workerd's types) together with the docs' TypeScript examples,
// and, side by side in a process of its own, over what runs in Node (scripts/tsconfig.json); fails if either fails.
import path from "node:path";
import ts from "typescript";
import { docFiles, fencesOf } from "../test/node/markdown.ts";
import { ROOT } from "./local-dev.ts";
import { runProcess } from "./processes.ts";

const inNode = runProcess("npx", ["tsc", "-p", "scripts"], { cwd: ROOT });

/**
 * The docs' ```ts blocks, each checked as a module at the project's root (where a reader's `./src/app.ts` is), named
 * after its place in the docs: docs-api.md-82.ts is the block at line 82 of docs/api.md.
 */
const examples = new Map(
  docFiles()
    .flatMap(fencesOf)
    .filter((fence) => fence.lang === "ts")
    .map((fence) => [path.join(ROOT, `${fence.file.replaceAll("/", "-")}-${fence.line}.ts`), fence.body] as const),
);

function checkWorker(): { code: number; output: string } {
  const config = ts.getParsedCommandLineOfConfigFile(path.join(ROOT, "tsconfig.json"), undefined, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
      throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n"));
    },
  });
  if (!config) throw new Error("tsconfig.json cannot be read");
  const host = ts.createCompilerHost(config.options);
  const { fileExists, readFile } = host;
  host.fileExists = (file) => examples.has(file) || fileExists.call(host, file);
  host.readFile = (file) => examples.get(file) ?? readFile.call(host, file);
  const program = ts.createProgram({ rootNames: [...config.fileNames, ...examples.keys()], options: config.options, host });
  const diagnostics = [...config.errors, ...ts.getPreEmitDiagnostics(program)];
  const output = ts.formatDiagnosticsWithColorAndContext(diagnostics, {
    getCanonicalFileName: (file) => file,
    getCurrentDirectory: () => ROOT,
    getNewLine: () => "\n",
  });
  return { code: diagnostics.length === 0 ? 0 : 1, output };
}

const results = [
  { project: ". and the docs' ts blocks", ...checkWorker() },
  { project: "scripts", ...(await inNode) },
];
for (const { project, code, output } of results) {
  if (code !== 0) console.error(`tsc -p ${project} failed:\n${output}`);
}
process.exitCode = results.some((r) => r.code !== 0) ? 1 : 0;
