// `npm test`: `npm run check` then `npm run build`, side by side with `vitest run` (arguments go to vitest). The checks
// run mostly on one CPU (tsc is one program); vitest leaves CPUs idle while it starts, ends its workers project and
// starts the browser's, and the checks fill them instead of keeping a CPU idle before the tests begin. Fails if either
// side fails; the checks' output, when they fail, comes after vitest's.
import { spawn } from "node:child_process";
import { ROOT } from "./local-dev.ts";
import { runProcess } from "./processes.ts";

const SCRIPTS = ["check", "build"];

/**
 * A command at the lowest CPU priority (nice 19) where there is `nice`: the checks then take only the time vitest
 * leaves idle (its browser files mostly wait), instead of slowing its workers files (127 s against 151 s here).
 */
function lowestPriority(command: string, args: string[]): [string, string[]] {
  return process.platform === "win32" ? [command, args] : ["nice", ["-n", "19", command, ...args]];
}

/** The first of SCRIPTS to fail, with its output; undefined when all pass. */
async function checkAndBuild(): Promise<{ script: string; code: number; output: string } | undefined> {
  for (const script of SCRIPTS) {
    const { code, output } = await runProcess(...lowestPriority("npm", ["run", script]), { cwd: ROOT });
    if (code !== 0) return { script, code, output };
  }
  return undefined;
}

const checks = checkAndBuild();
const vitest = spawn("npx", ["vitest", "run", ...process.argv.slice(2)], { cwd: ROOT, stdio: "inherit" });
const testsCode = await new Promise<number>((resolve) => {
  vitest.on("error", () => resolve(1));
  vitest.on("close", (code) => resolve(code ?? 1));
});
const failed = await checks;
if (failed) console.error(`\n${failed.output}\nnpm run ${failed.script} failed (exit code ${failed.code})`);
else console.log(`\n${SCRIPTS.map((script) => `npm run ${script}`).join(" and ")}: passed`);
process.exitCode = testsCode === 0 && !failed ? 0 : 1;
