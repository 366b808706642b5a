// npm start's pieces (scripts/local-dev.ts, scripts/ports.ts), and the starts it refuses before writing anything.
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  DEFAULT_PORT,
  devVar,
  localSetup,
  portFrom,
  ROOT,
  recordRunning,
  runningInstance,
  setDevVar,
} from "../../scripts/local-dev.ts";
import { portInUse } from "../../scripts/ports.ts";
import { runProcess } from "../../scripts/processes.ts";

const folder = mkdtempSync(path.join(os.tmpdir(), "virtual-numbers-local-"));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** A new empty folder of this file's. */
function emptyFolder(name: string): string {
  const dir = path.join(folder, name);
  mkdirSync(dir);
  return dir;
}

function listening(): Promise<Server> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => resolve(server));
  });
}

describe("PORT", () => {
  it("is taken when it is a port number, 8787 when unset", () => {
    expect(portFrom(undefined)).toBe(DEFAULT_PORT);
    expect(portFrom("")).toBe(8787);
    expect(portFrom("8790")).toBe(8790);
    expect(portFrom("1")).toBe(1);
    expect(portFrom("65535")).toBe(65_535);
  });

  it.each(["0", "65536", "abc", "80 ", "+80", "1e3", "0x50", "-1", "123456"])("refuses %j, naming it", (value) => {
    expect(() => portFrom(value)).toThrow(`PORT must be a port number from 1 to 65535, not "${value}".`);
  });
});

describe("the local setup", () => {
  it("is the project's own folder unless VN_LOCAL_DIR names another", () => {
    const own = localSetup({});
    expect(own).toMatchObject({ port: 8787, base: "http://localhost:8787", dir: ROOT, ownDir: false });
    expect(own.devVars).toBe(path.join(ROOT, ".dev.vars"));
    expect(own.demoKey).toBe(path.join(ROOT, ".wrangler", "state", "demo-api-key"));

    const other = localSetup({ PORT: "8790", VN_LOCAL_DIR: folder });
    expect(other).toMatchObject({ port: 8790, base: "http://localhost:8790", dir: folder, ownDir: true });
    for (const file of [other.devVars, other.state, other.demoKey, other.staffToken, other.running, other.listenerState]) {
      expect(file.startsWith(`${folder}${path.sep}`), file).toBe(true);
    }
  });

  it("knows a running start by its record, while its process exists", () => {
    const setup = localSetup({ VN_LOCAL_DIR: emptyFolder("records") });
    expect(runningInstance(setup)).toBeUndefined();
    mkdirSync(setup.state, { recursive: true });
    writeFileSync(setup.running, JSON.stringify({ pid: process.pid, port: 8790 }));
    expect(runningInstance(setup)).toEqual({ pid: process.pid, port: 8790 });
    // A process that has ended (its start was killed and left its record behind) runs nothing.
    const ended = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" });
    writeFileSync(setup.running, JSON.stringify({ pid: Number(ended.stdout), port: 8790 }));
    expect(runningInstance(setup)).toBeUndefined();
    writeFileSync(setup.running, "not JSON");
    expect(runningInstance(setup)).toBeUndefined();
  });

  it("is claimed by one start only: a claim beside a running start is refused and leaves its record", () => {
    const setup = localSetup({ PORT: "8791", VN_LOCAL_DIR: emptyFolder("claims") });
    mkdirSync(setup.state, { recursive: true });
    // A running start's record: this process stands in for it, as it exists.
    const record = `${JSON.stringify({ pid: process.pid, port: 8790 })}\n`;
    writeFileSync(setup.running, record);
    expect(recordRunning(setup)).toEqual({ pid: process.pid, port: 8790 });
    expect(readFileSync(setup.running, "utf8")).toBe(record);
    expect(readdirSync(setup.state)).toEqual(["npm-start.json"]);
  });

  it("replaces the record of a start whose process has ended", () => {
    const setup = localSetup({ PORT: "8791", VN_LOCAL_DIR: emptyFolder("stale") });
    mkdirSync(setup.state, { recursive: true });
    const ended = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" });
    writeFileSync(setup.running, JSON.stringify({ pid: Number(ended.stdout), port: 8790 }));
    expect(recordRunning(setup)).toBeUndefined();
    expect(runningInstance(setup)).toEqual({ pid: process.pid, port: 8791 });
    expect(readdirSync(setup.state)).toEqual(["npm-start.json"]);
  });

  it("sees a port another program listens on", async () => {
    const server = await listening();
    const { port } = server.address() as { port: number };
    expect(await portInUse(port)).toBe(true);
    await new Promise((resolve) => server.close(resolve));
    expect(await portInUse(port)).toBe(false);
  });

  it("writes .dev.vars as a shell script would set them, and reads them back", () => {
    const file = path.join(emptyFolder("dev-vars"), ".dev.vars");
    const jwks = JSON.stringify({ keys: [{ kty: "RSA", n: "0Px4", e: "AQAB" }] });
    setDevVar(file, "ADMIN_TOKEN", "b6a07554");
    setDevVar(file, "ACCESS_JWKS", jwks);
    setDevVar(file, "ADMIN_TOKEN", "c7b18665");
    expect(readFileSync(file, "utf8")).toBe(`ADMIN_TOKEN='c7b18665'\nACCESS_JWKS='${jwks}'\n`);
    expect(devVar(file, "ADMIN_TOKEN")).toBe("c7b18665");
    expect(devVar(file, "ACCESS_JWKS")).toBe(jwks);
    expect(devVar(file, "ACCESS_AUD")).toBeUndefined();
    // The docs read a variable by running the file: `ADMIN=$(. ./.dev.vars && echo "$ADMIN_TOKEN")`.
    const sourced = execFileSync("bash", ["-c", '. ./.dev.vars && printf %s "$ADMIN_TOKEN|$ACCESS_JWKS"'], {
      cwd: path.dirname(file),
      encoding: "utf8",
    });
    expect(sourced).toBe(`c7b18665|${jwks}`);
    // An older file's quotes are read too.
    writeFileSync(file, 'ADMIN_TOKEN="d8c29776"\nACCESS_AUD=local\n');
    expect(devVar(file, "ADMIN_TOKEN")).toBe("d8c29776");
    expect(devVar(file, "ACCESS_AUD")).toBe("local");
  });
});

/** `npm start`'s script with these variables: its exit code and what it said. */
function startScript(env: Record<string, string>): Promise<{ code: number; output: string }> {
  return runProcess(process.execPath, [path.join(ROOT, "scripts", "start.ts")], {
    cwd: ROOT,
    env: { ...process.env, ...env },
  });
}

describe("a start that cannot go ahead", () => {
  it("ends before it writes anything: a port in use, or a PORT that is none", async () => {
    const server = await listening();
    const { port } = server.address() as { port: number };
    const taken = emptyFolder("taken");
    const invalid = emptyFolder("invalid");
    try {
      const [onTaken, onInvalid] = await Promise.all([
        startScript({ PORT: String(port), VN_LOCAL_DIR: taken }),
        startScript({ PORT: "eighty", VN_LOCAL_DIR: invalid }),
      ]);
      expect(onTaken.code).toBe(1);
      expect(onTaken.output).toContain(`Port ${port} is in use by another program. Nothing was changed.`);
      expect(onInvalid.code).toBe(1);
      expect(onInvalid.output).toContain('PORT must be a port number from 1 to 65535, not "eighty".');
      expect(readdirSync(taken)).toEqual([]);
      expect(readdirSync(invalid)).toEqual([]);
    } finally {
      server.close();
    }
  });
});
