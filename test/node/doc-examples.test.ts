// Every shell example of the README and the guides, run as printed against an `npm start` of this test's own: on a free
// port (PORT) and with a folder of its own for .dev.vars and the local state (VN_LOCAL_DIR), so a developer's instance
// and state are never touched. Each example runs in that folder, where its `.dev.vars` and `.wrangler/state/…` are, in
// a bash of its own with `set -euo pipefail` (so it takes nothing from another), and curl fails on an HTTP error
// (--fail-with-body). An example passes when every command in it succeeded and what it prints is what its doc shows
// after it; one that prints must show it. The one change made to an example is the port. The commands `npm start`
// prints run too. Last, a second `npm start` of the same folder is refused and changes nothing.
import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { unstable_readConfig } from "wrangler";
import { waitForHealth } from "../../scripts/bench/dev-server.ts";
import { localSetup, ROOT } from "../../scripts/local-dev.ts";
import { freePort } from "../../scripts/ports.ts";
import { runProcess, type Started, startProcess, stopGroup } from "../../scripts/processes.ts";
import { docFiles, type Fence, fencesOf, onPort, outputMismatch, runnable, windowOf } from "./markdown.ts";

/** Every process this file started, each in a process group of its own (stopping it stops what it started). */
const started = new Set<Started>();

function start(command: string, args: string[], options: { env: NodeJS.ProcessEnv; cwd: string }): Started {
  const one = startProcess(command, args, { ...options, detached: true });
  started.add(one);
  return one;
}

// However this file's process ends (a timeout, a failed hook), no process it started outlives it.
process.once("exit", () => {
  for (const { child } of started) {
    if (child.exitCode !== null || child.signalCode !== null || !child.pid) continue;
    try {
      process.kill(-child.pid, "SIGKILL");
    } catch {
      // Gone already.
    }
  }
});

/** Where a program the examples use is, or a failure that says to install it. */
function installed(program: string): string {
  try {
    return execFileSync("sh", ["-c", `command -v ${program}`], { encoding: "utf8" }).trim();
  } catch {
    throw new Error(`The docs' examples use ${program}: install it (apt-get install ${program}, brew install ${program}).`);
  }
}

async function until(what: string, holds: () => boolean, timeoutMs: number): Promise<void> {
  for (const deadline = Date.now() + timeoutMs; !holds(); ) {
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The examples in reading order, each with the output its doc shows after it, if any. */
const examples = docFiles().flatMap((file) => {
  const fences = fencesOf(file);
  return fences.flatMap((fence, index) => {
    const next = fences[index + 1];
    return runnable(fence) ? [{ fence, shown: next?.attrs.has("output") ? next : undefined }] : [];
  });
});
const readmeBanner: Fence | undefined = fencesOf("README.md").find((f) => f.attrs.get("output") === "npm start");
/** The titles of the commands npm start prints, as the README shows them ("  List the demo account's orders:"). */
const printedTitles = [...(readmeBanner?.body ?? "").matchAll(/^ {2}(\S.*):$/gm)].map((match) => match[1]!);

/** The commands under each title of npm start's banner (a title line, then lines indented by four spaces or more). */
function printedCommands(banner: string): Map<string, string> {
  const commands = new Map<string, string[]>();
  let title: string | undefined;
  for (const line of banner.split("\n")) {
    const heading = /^ {2}(\S.*):$/.exec(line);
    if (heading) {
      title = heading[1]!;
      commands.set(title, []);
    } else if (title && /^ {4}/.test(line)) commands.get(title)!.push(line.trim());
    else title = undefined;
  }
  return new Map([...commands].map(([name, lines]) => [name, lines.join("\n")]));
}

const folder = mkdtempSync(path.join(os.tmpdir(), "virtual-numbers-docs-"));
const local = path.join(folder, "local");
const tmp = path.join(folder, "tmp");
const bin = path.join(folder, "bin");
let env: NodeJS.ProcessEnv;
let port: number;
let npmStart: Started;
let migrationsListed: Promise<{ code: number; output: string }>;

beforeAll(async () => {
  for (const dir of [local, tmp, bin]) mkdirSync(dir);
  // curl that fails on an HTTP error, printing the answer: an example whose request is refused fails.
  const curl = installed("curl");
  writeFileSync(path.join(bin, "curl"), `#!/bin/sh\nexec ${curl} --fail-with-body --show-error "$@"\n`);
  chmodSync(path.join(bin, "curl"), 0o755);
  installed("jq");
  port = await freePort();
  // The Worker's variables come from the folder's .dev.vars alone: none of the test runner's (ADMIN_TOKEN) or the shell's.
  const config = unstable_readConfig({ config: path.join(ROOT, "wrangler.toml") }, { hideWarnings: true });
  env = { ...process.env, PORT: String(port), VN_LOCAL_DIR: local };
  for (const name of [...Object.keys(config.vars), ...(config.secrets?.required ?? [])]) delete env[name];
  npmStart = start("npm", ["start"], { env, cwd: ROOT });
  await waitForHealth(`http://localhost:${port}`, npmStart.child).catch((error: Error) => {
    throw new Error(`${error.message}; npm start printed:\n${npmStart.output()}`);
  });
  // Read while the examples run (wrangler takes a few seconds to start), by its command line as a developer runs it.
  migrationsListed = listMigrations();
});

/** `wrangler d1 migrations list` of the instance's database: its exit code and output. */
function listMigrations(): Promise<{ code: number; output: string }> {
  const wrangler = createRequire(import.meta.url).resolve("wrangler");
  const listing = ["d1", "migrations", "list", "DB", "--local", "--persist-to", localSetup(env).state];
  const list = start(process.execPath, [wrangler, ...listing], { env: { ...env, CI: "true" }, cwd: ROOT });
  return list.exited.then((code) => ({ code, output: list.output() }));
}

afterAll(async () => {
  await Promise.all([...started].map((one) => stopGroup(one)));
  rmSync(folder, { recursive: true, force: true });
});

/**
 * Runs a script in a bash of its own, in the test's folder, against the test's instance; what it printed on stdout. A
 * failure shows what the Worker logged meanwhile.
 */
async function runs(script: string, where: string): Promise<string> {
  const logged = npmStart.output().length;
  const { code, stdout, output } = await runProcess("bash", ["-c", `set -euo pipefail\n${onPort(script, port)}`], {
    cwd: local,
    env: { ...env, PATH: `${bin}${path.delimiter}${env.PATH}`, TMPDIR: tmp },
  });
  const log = npmStart.output().slice(logged);
  expect(code, `${where} exited ${code}\n--- stdout and stderr\n${output}\n--- the Worker's log meanwhile\n${log}`).toBe(0);
  return stdout;
}

describe("npm start", () => {
  it("prints what the README shows", () => {
    expect(readmeBanner, "README.md shows npm start's output").toBeDefined();
    const shown = onPort(readmeBanner!.body, port);
    expect(outputMismatch(shown, windowOf(shown, npmStart.output()))).toBeUndefined();
  });

  it.each(printedTitles)("prints a command that works: %s", async (title) => {
    const command = printedCommands(npmStart.output()).get(title);
    expect(command, `npm start prints no command under "${title}"`).toBeTruthy();
    await runs(command!, `npm start's "${title}"`);
  });
});

/** How long the listener may take to start, and its events to arrive once the example has run. */
const LISTENER_START_MS = 30_000;
const EVENTS_MS = 15_000;
/** An example's own time, the listener's waits included: above the node project's 30 s, which the waits would pass. */
const EXAMPLE_TIMEOUT_MS = LISTENER_START_MS + EVENTS_MS + 30_000;

describe("the shell examples of the README and the guides", () => {
  it.each(examples.map((example) => [`${example.fence.file}:${example.fence.line}`, example] as const))(
    "%s runs as printed",
    async (where, { fence, shown }) => {
      const listens = shown?.attrs.get("output") === "npm run webhooks:listen";
      const listener = listens
        ? start("npm", ["run", "webhooks:listen", "--", "--port", String(await freePort())], { env, cwd: ROOT })
        : undefined;
      try {
        if (listener) await until("the listener", () => listener.output().includes("Listening on"), LISTENER_START_MS);
        const heard = listener?.output().length ?? 0;
        const stdout = await runs(fence.body, where);
        // What an example prints is what its doc shows; one whose doc shows another command's output prints nothing.
        if (!shown || listener) expect(stdout, `${where} prints what its doc does not show`).toBe("");
        if (!shown) return;
        if (listener) {
          const events = () =>
            listener
              .output()
              .slice(heard)
              .split("\n")
              .filter((line) => /^\d{4}-\S+Z {2}/.test(line));
          const count = shown.body.trim().split("\n").length;
          await until(`${count} events at the listener`, () => events().length >= count, EVENTS_MS);
          expect(outputMismatch(onPort(shown.body, port), events().join("\n"), { unordered: true })).toBeUndefined();
        } else {
          expect(outputMismatch(onPort(shown.body, port), stdout), `${where}'s output`).toBeUndefined();
        }
      } finally {
        if (listener) await stopGroup(listener, "SIGINT");
      }
    },
    EXAMPLE_TIMEOUT_MS,
  );
});

describe("the local database", () => {
  it("has the migrations wrangler knows as applied: `wrangler d1 migrations list` finds none to apply", async () => {
    let listing = await migrationsListed;
    // Read beside the examples' writes, the local database may be busy (SQLITE_BUSY, as for a developer whose wrangler
    // dev is writing): read again, once the examples are done.
    if (listing.output.includes("SQLITE_BUSY")) listing = await listMigrations();
    expect(listing.output).toContain("No migrations to apply");
    expect(listing.code).toBe(0);
  });
});

describe("a second npm start", () => {
  it("of the same folder while one runs is refused, and changes nothing", async () => {
    const setup = localSetup(env);
    const files = [setup.devVars, setup.demoKey, setup.staffToken, setup.accessPrivateKey, setup.running];
    const snapshot = () => files.map((file) => (existsSync(file) ? readFileSync(file, "utf8") : undefined));
    const before = snapshot();
    const second = start("npm", ["start"], { env, cwd: ROOT });
    expect(await second.exited).not.toBe(0);
    expect(second.output()).toContain(`virtual-numbers is running already from ${local}`);
    expect(snapshot()).toEqual(before);
    // Nothing was seeded again: the first start's portal link still opens the page to set a password.
    const link = /Portal: +(\S+)/.exec(npmStart.output())?.[1];
    expect(link).toBeDefined();
    const page = await fetch(link!);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("Set your password");
  });
});
