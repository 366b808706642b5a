// The Chromium the browser tests drive: CHROME_PATH, else a system Chromium or Chrome that starts, else the one
// @sparticuz/chromium ships (Linux x64), inflated once into node_modules/.cache (a folder named by its version), with a
// fonts.conf listing its fonts (a machine without fonts renders blank text otherwise) and, where the system lacks them,
// its NSS/expat libraries (LD_LIBRARY_PATH).
import { spawnSync } from "node:child_process";
import { accessSync, constants, statSync } from "node:fs";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";

export type Chrome = {
  executablePath: string;
  source: "CHROME_PATH" | "system" | "@sparticuz/chromium";
  /** Environment variables the browser needs on top of the test process's. */
  env: Record<string, string>;
};

const SYSTEM_CHROMES = [
  "/usr/bin/chromium",
  "/usr/bin/google-chrome-stable",
  "/usr/bin/google-chrome",
  "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
];

export async function findChrome(): Promise<Chrome> {
  if (process.env.CHROME_PATH) return { executablePath: process.env.CHROME_PATH, source: "CHROME_PATH", env: {} };
  // BUNDLED_CHROME=1 skips the system browser: to check what a machine with nothing but `npm ci` runs.
  if (process.env.BUNDLED_CHROME !== "1") {
    const system = SYSTEM_CHROMES.find((file) => isExecutableFile(file) && starts(file, {}));
    if (system) return { executablePath: system, source: "system", env: {} };
  }
  return (await bundledChrome()) ?? (await bundledChrome({ fresh: true })) ?? failed();
}

/** The bundled browser, or undefined when it does not start (e.g. a run killed while inflating left a truncated file). */
async function bundledChrome({ fresh = false } = {}): Promise<Chrome | undefined> {
  const { default: Chromium, inflate } = await import("@sparticuz/chromium");
  // createRequire: vite's module runner (which runs the global setup) has no import.meta.resolve.
  const packageDir = path.join(path.dirname(createRequire(import.meta.url).resolve("@sparticuz/chromium")), "..");
  const { version } = JSON.parse(await readFile(path.join(packageDir, "package.json"), "utf8")) as { version: string };
  const dir = path.resolve("node_modules/.cache", `sparticuz-chromium-${version}`);
  if (fresh) await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  // The package inflates into os.tmpdir() (a shared /tmp/chromium, whatever its version) and reuses what is there; both
  // calls read TMPDIR synchronously, so it can be restored at once.
  const tmpdir = process.env.TMPDIR;
  process.env.TMPDIR = dir;
  const inflating = Promise.all([Chromium.executablePath(), inflate(path.join(packageDir, "bin", "al2023.tar.br"))]);
  if (tmpdir === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = tmpdir;
  const [executablePath, al2023] = await inflating;
  const fontsConf = path.join(dir, "fonts.conf");
  const fontDirs = ["/usr/share/fonts", "/usr/local/share/fonts", path.join(dir, "fonts")].map((d) => `<dir>${d}</dir>`);
  await writeFile(
    fontsConf,
    `<?xml version="1.0"?><fontconfig>${fontDirs.join("")}<cachedir>${dir}/fonts-cache</cachedir></fontconfig>\n`,
  );
  const env: Record<string, string> = { FONTCONFIG_FILE: fontsConf };
  if (starts(executablePath, env)) return { executablePath, source: "@sparticuz/chromium", env };
  env.LD_LIBRARY_PATH = path.join(al2023, "lib");
  return starts(executablePath, env) ? { executablePath, source: "@sparticuz/chromium", env } : undefined;
}

function starts(executablePath: string, env: Record<string, string>): boolean {
  return spawnSync(executablePath, ["--version"], { env: { ...process.env, ...env }, timeout: 10_000 }).status === 0;
}

function isExecutableFile(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

function failed(): never {
  throw new Error(
    "No Chromium for the browser tests: set CHROME_PATH to a Chrome or Chromium (the bundled one is for Linux x64 only).",
  );
}
