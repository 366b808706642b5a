// Setup file: the Worker logs a JSON line per request. vitest would carry every line to its main process (a message per
// line: about a quarter of the CPU of a file that sends thousands of requests) to show it only if its test fails. The
// lines stay here instead, and a test that fails prints its own.
import { afterAll, beforeEach } from "vitest";

const printed = Symbol.for("test.logs-on-failure.print");
type Log = typeof console.log;
const holder = globalThis as { [printed]?: Log };
// Setup files run again for every file of a workerd: the first run keeps the real console.log.
holder[printed] ??= console.log.bind(console);
const print = holder[printed];

let lines: unknown[][] = [];
console.log = (...args: unknown[]) => {
  lines.push(args);
};

beforeEach(({ onTestFinished }) => {
  // Lines logged since the last test ended (the file's beforeAll, background work of an earlier test) go with this one.
  const before = lines;
  lines = [];
  onTestFinished(({ task }) => {
    if (task.result?.state === "fail") for (const args of [...before, ...lines]) print(...args);
    lines = [];
  });
});

// A file whose beforeAll failed runs no test: print what it logged.
// biome-ignore lint/correctness/noEmptyPattern: vitest refuses a hook's first parameter unless it is destructured.
afterAll(({}, file) => {
  if (file.result?.state === "fail" || (file.result?.errors?.length ?? 0) > 0) for (const args of lines) print(...args);
  lines = [];
});
