// Where `npm start`, `npm run webhooks:listen` and their tests find the local setup: its port, folder, files and state.
import { existsSync, linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";

export const ROOT = path.resolve(import.meta.dirname, "..");
/** The port `npm start` serves the Worker on when PORT names none. */
export const DEFAULT_PORT = 8787;

export interface LocalSetup {
  port: number;
  /** http://localhost:<port>, where the Worker answers. */
  base: string;
  /** The folder of .dev.vars and .wrangler/state: the project's own, or VN_LOCAL_DIR's (a second, separate instance). */
  dir: string;
  /** Whether `dir` is another folder than the project's (wrangler is then told where its files are). */
  ownDir: boolean;
  devVars: string;
  /** The local D1, R2 and queue files (wrangler's --persist-to), and what is kept beside them. */
  state: string;
  /** The demo account's API key, written by `npm start`. */
  demoKey: string;
  /** The local staff admin's Access token that `npm start` prints (valid a day), for scripts and the docs' examples. */
  staffToken: string;
  /** The private half of the local stand-in for Cloudflare Access's keys (its public half is ACCESS_JWKS in .dev.vars). */
  accessPrivateKey: string;
  /** The local receiver's endpoint and signing secret, written by `npm run webhooks:listen`. */
  listenerState: string;
  /** Written by a running `npm start` (its process id and port), removed when it stops. */
  running: string;
}

/** A port number as PORT gives it: decimal digits, 1 to 65535. */
export function portFrom(value: string | undefined): number {
  if (value === undefined || value === "") return DEFAULT_PORT;
  const port = /^[0-9]{1,5}$/.test(value) ? Number(value) : Number.NaN;
  if (!(port >= 1 && port <= 65_535)) throw new Error(`PORT must be a port number from 1 to 65535, not "${value}".`);
  return port;
}

/** The local setup that PORT and VN_LOCAL_DIR (relative to the current folder) describe; the defaults without them. */
export function localSetup(env: Record<string, string | undefined> = process.env): LocalSetup {
  const port = portFrom(env.PORT);
  const dir = env.VN_LOCAL_DIR ? path.resolve(env.VN_LOCAL_DIR) : ROOT;
  const state = path.join(dir, ".wrangler", "state");
  return {
    port,
    base: `http://localhost:${port}`,
    dir,
    ownDir: dir !== ROOT,
    devVars: path.join(dir, ".dev.vars"),
    state,
    demoKey: path.join(state, "demo-api-key"),
    staffToken: path.join(state, "staff-access-token"),
    accessPrivateKey: path.join(state, "access-private-key.json"),
    listenerState: path.join(state, "webhooks-listen.json"),
    running: path.join(state, "npm-start.json"),
  };
}

/** localSetup() for a script: a PORT it cannot take ends the script with the reason. */
export function localSetupOrExit(): LocalSetup {
  try {
    return localSetup();
  } catch (error) {
    console.error((error as Error).message);
    process.exit(1);
  }
}

/** Whether a process of this id exists (a signal 0 tests it; EPERM means it exists but is another user's). */
function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

export interface RunningInstance {
  pid: number;
  port: number;
}

/** The `npm start` running on this setup's folder, if one is: its record names a process that still exists. */
export function runningInstance(setup: LocalSetup): RunningInstance | undefined {
  let record: Partial<RunningInstance>;
  try {
    record = JSON.parse(readFileSync(setup.running, "utf8"));
  } catch {
    return undefined;
  }
  const { pid, port } = record;
  if (!Number.isInteger(pid) || !Number.isInteger(port)) return undefined;
  return processExists(pid as number) ? { pid: pid as number, port: port as number } : undefined;
}

/**
 * Records this process as the folder's running `npm start`, unless one runs already: then that one is returned and its
 * record stays. The record is made whole and only where there is none (a hard link to a file written first, which
 * fails when the record exists), so of two starts at once exactly one gets it. A record whose process has ended (a
 * start killed outright) is replaced. The record goes when this process exits.
 */
export function recordRunning(setup: LocalSetup): RunningInstance | undefined {
  mkdirSync(setup.state, { recursive: true });
  const draft = `${setup.running}.${process.pid}`;
  writeFileSync(draft, `${JSON.stringify({ pid: process.pid, port: setup.port })}\n`);
  try {
    for (;;) {
      try {
        linkSync(draft, setup.running);
        break;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      }
      const running = runningInstance(setup);
      if (running) return running;
      rmSync(setup.running, { force: true });
    }
  } finally {
    rmSync(draft, { force: true });
  }
  process.on("exit", () => rmSync(setup.running, { force: true }));
  return undefined;
}

/** The value of a variable in a .dev.vars file (in single or double quotes, or none), or undefined when empty or unset. */
export function devVar(file: string, name: string): string | undefined {
  const existing = existsSync(file) ? readFileSync(file, "utf8") : "";
  const match = existing.match(new RegExp(`^${name}[ \\t]*=[ \\t]*(?:'([^'\\n]*)'|"([^"\\n]*)"|(.*?))[ \\t]*$`, "m"));
  return (match?.[1] ?? match?.[2] ?? match?.[3]) || undefined;
}

/**
 * Sets a variable in a .dev.vars file, replacing its line when it has one. Values are single-quoted (a JWKS holds double
 * quotes), so the file is also a shell script that sets them: `. ./.dev.vars`.
 */
export function setDevVar(file: string, name: string, value: string): void {
  const existing = existsSync(file) ? readFileSync(file, "utf8") : "";
  const line = `${name}='${value}'`;
  const pattern = new RegExp(`^${name}\\s*=.*$`, "m");
  const next = pattern.test(existing)
    ? existing.replace(pattern, line)
    : `${existing}${existing && !existing.endsWith("\n") ? "\n" : ""}${line}\n`;
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, next);
}

/** Whether the Worker at `base` answers its health check (false while it is starting, or when nothing listens). */
export async function isHealthy(base: string): Promise<boolean> {
  return fetch(`${base}/healthz`).then(
    async (r) => {
      await r.arrayBuffer();
      return r.ok;
    },
    () => false,
  );
}
