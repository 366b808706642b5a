// The memory of the workerd process that runs the Worker under `wrangler dev`, from the kernel's counters in /proc
// (Linux only): shared by the benchmarks that measure a request's memory.
import { readdirSync, readFileSync, readlinkSync, writeFileSync } from "node:fs";

/** Resident set and its peak of a process, in MiB. */
export function memoryOf(pid: number): { rss: number; hwm: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kib = (field: string) => Number(status.match(new RegExp(`^${field}:\\s+(\\d+) kB`, "m"))?.[1] ?? Number.NaN);
  return { rss: kib("VmRSS") / 1024, hwm: kib("VmHWM") / 1024 };
}

function descendants(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // The parent is the 2nd field after the command, which sits in parentheses and may hold spaces.
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
    } catch {
      // Gone meanwhile.
    }
  }
  const found: number[] = [];
  const visit = (pid: number) => {
    for (const child of children.get(pid) ?? []) {
      found.push(child);
      visit(child);
    }
  };
  visit(root);
  return found;
}

function opensUnder(pid: number, folder: string): boolean {
  try {
    return readdirSync(`/proc/${pid}/fd`).some((fd) => {
      try {
        return readlinkSync(`/proc/${pid}/fd/${fd}`).startsWith(folder);
      } catch {
        return false;
      }
    });
  } catch {
    return false;
  }
}

/**
 * wrangler dev runs two workerd processes: a proxy that owns the public port and relays each request (it grows by
 * about 2 MiB per 10 MiB body in flight, as it streams them), and the runtime that runs the Worker and the D1 and R2
 * simulators, the only one with files open in the state folder.
 */
export function runtimeWorkerd(wranglerPid: number, state: string): number {
  const workerds = descendants(wranglerPid).filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/comm`, "utf8").trim() === "workerd";
    } catch {
      return false;
    }
  });
  const runtime = workerds.find((pid) => opensUnder(pid, state));
  if (runtime === undefined) throw new Error(`no workerd with files in ${state} among ${workerds.join(", ") || "none"}`);
  return runtime;
}

/**
 * Sets the process's peak resident set (VmHWM) back to its resident set now, so the next peak read is of what ran
 * since (clear_refs' "5", Linux 4.0 on).
 */
export function resetPeak(pid: number): void {
  writeFileSync(`/proc/${pid}/clear_refs`, "5");
}
