// Child processes as the scripts and the node tests start them: their output collected as it comes, their end awaited.
import { type ChildProcess, type SpawnOptions, spawn } from "node:child_process";

/** A started process: its stdout so far, its stdout and stderr as they came, and its exit code once it ends. */
export interface Started {
  child: ChildProcess;
  stdout: () => string;
  output: () => string;
  /** The exit code; 1 when a signal ended it or it could not start. */
  exited: Promise<number>;
}

export function startProcess(command: string, args: string[], options: Omit<SpawnOptions, "stdio"> = {}): Started {
  const child = spawn(command, args, { ...options, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    stdout += chunk;
    output += chunk;
  });
  child.stderr?.on("data", (chunk: Buffer) => (output += chunk));
  const exited = new Promise<number>((resolve) => {
    child.on("error", (error) => {
      output += `${error.message}\n`;
      resolve(1);
    });
    child.on("close", (code) => resolve(code ?? 1));
  });
  return { child, stdout: () => stdout, output: () => output, exited };
}

/** Runs a process to its end: its exit code, its stdout, and its stdout and stderr as they came. */
export async function runProcess(
  command: string,
  args: string[],
  options: Omit<SpawnOptions, "stdio"> = {},
): Promise<{ code: number; stdout: string; output: string }> {
  const started = startProcess(command, args, options);
  const code = await started.exited;
  return { code, stdout: started.stdout(), output: started.output() };
}

/**
 * Stops a process started `detached` (the leader of a process group of its own) and everything it started, and waits
 * for its end.
 */
export function stopGroup(started: Started, signal: NodeJS.Signals = "SIGTERM"): Promise<number> {
  if (started.child.exitCode === null && started.child.signalCode === null && started.child.pid) {
    try {
      process.kill(-started.child.pid, signal);
    } catch (error) {
      // The group is gone already: the process ended between the check and the signal.
      if ((error as NodeJS.ErrnoException).code !== "ESRCH") throw error;
    }
  }
  return started.exited;
}
