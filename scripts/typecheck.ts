// The type checks run side by side, one per CPU: the Worker and its tests (workerd's types), and what runs in Node (the
// scripts and the browser tests, scripts/tsconfig.json); the check fails if either does, with its output.
import { spawn } from "node:child_process";

const PROJECTS = [".", "scripts"];

function check(project: string): Promise<{ project: string; code: number; output: string }> {
  return new Promise((resolve) => {
    const child = spawn("npx", ["tsc", "-p", project], { stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk));
    child.on("close", (code) => resolve({ project, code: code ?? 1, output }));
  });
}

const results = await Promise.all(PROJECTS.map(check));
for (const { project, code, output } of results) {
  if (code !== 0) console.error(`tsc -p ${project} failed:\n${output}`);
}
process.exitCode = results.some((r) => r.code !== 0) ? 1 : 0;
