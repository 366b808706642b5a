// `npm run typecheck`: one tsc program over the Worker and its tests (tsconfig.json), what runs in Node
// (scripts/tsconfig.json: the scripts, test/browser, test/node) and the docs' TypeScript examples. One program
// checks src/ once: two (one per tsconfig) each checked all of src/, as the scripts import it, at twice the CPU.
import path from "node:path";
import ts from "typescript";
import { docFiles, fencesOf } from "../test/node/markdown.ts";
import { ROOT } from "./local-dev.ts";

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

function parsed(tsconfig: string): ts.ParsedCommandLine {
  const config = ts.getParsedCommandLineOfConfigFile(path.join(ROOT, tsconfig), undefined, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
      throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n"));
    },
  });
  if (!config) throw new Error(`${tsconfig} cannot be read`);
  return config;
}

const worker = parsed("tsconfig.json");
const inNode = parsed("scripts/tsconfig.json");
// scripts/tsconfig.json extends tsconfig.json and narrows only `types` (to node, which the Worker's tests have too):
// the Worker's options hold for both sets of files.
const host = ts.createCompilerHost(worker.options);
const { fileExists, readFile } = host;
host.fileExists = (file) => examples.has(file) || fileExists.call(host, file);
host.readFile = (file) => examples.get(file) ?? readFile.call(host, file);
const rootNames = [...new Set([...worker.fileNames, ...inNode.fileNames, ...examples.keys()])];
const program = ts.createProgram({ rootNames, options: worker.options, host });
const diagnostics = [...worker.errors, ...inNode.errors, ...ts.getPreEmitDiagnostics(program)];
if (diagnostics.length > 0) {
  const output = ts.formatDiagnosticsWithColorAndContext(diagnostics, {
    getCanonicalFileName: (file) => file,
    getCurrentDirectory: () => ROOT,
    getNewLine: () => "\n",
  });
  console.error(`tsc failed:\n${output}`);
}
process.exitCode = diagnostics.length === 0 ? 0 : 1;
