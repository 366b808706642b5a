// Starting points shared by the benchmarks that drive `wrangler dev`: starting it, and waiting until it answers.
import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import { isHealthy } from "../local-dev.ts";

/**
 * `wrangler dev` of the Worker in `workerRoot`, on 127.0.0.1:`port`, keeping its state in `state`, with these
 * variables (ADMIN_TOKEN among them), in a process group of its own (so stopping it stops workerd too). Its stdout is
 * piped when asked for. With `testScheduled`, GET /__scheduled runs the Worker's scheduled handler.
 */
export function startWranglerDev(
  workerRoot: string,
  state: string,
  port: number,
  vars: Record<string, string>,
  stdout: "pipe" | "ignore",
  { testScheduled = false }: { testScheduled?: boolean } = {},
): ChildProcess {
  const wranglerBin = path.join(workerRoot, "node_modules", "wrangler", "bin", "wrangler.js");
  const args = ["dev", "--ip", "127.0.0.1", "--port", String(port), "--persist-to", state];
  for (const [name, value] of Object.entries(vars)) args.push("--var", `${name}:${value}`);
  if (testScheduled) args.push("--test-scheduled");
  return spawn(process.execPath, [wranglerBin, ...args], { cwd: workerRoot, detached: true, stdio: ["ignore", stdout, "pipe"] });
}

/** Waits (a minute at most) until `wrangler dev` answers /healthz; gives up at once if it exited. */
export async function waitForHealth(base: string, dev: ChildProcess): Promise<void> {
  for (let attempt = 0; attempt < 120; attempt++) {
    if (dev.exitCode !== null) throw new Error(`wrangler dev exited with ${dev.exitCode}`);
    if (await isHealthy(base)) return;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error("wrangler dev did not answer /healthz within a minute");
}
