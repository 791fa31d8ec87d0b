// The process table as the tests read it (Linux).
import { readFileSync, readdirSync } from "node:fs";

/**
 * A sleep length, to find a test's processes by, that no other process on
 * the machine has: the whole pid, fixed-width (no marker holds another),
 * then n.
 */
export function marker(n) {
  return `8${String(process.pid).padStart(7, "0")}${String(n).padStart(3, "0")}`;
}

/** Live sleep processes whose argument starts with m. */
export function sleeps(m) {
  return pidsWith(m).filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, "utf8").startsWith(`sleep\0${m}`);
    } catch {
      return false; // gone while we looked
    }
  });
}

/** Live processes whose command line holds s. */
export function pidsWith(s) {
  const out = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cmd = readFileSync(`/proc/${name}/cmdline`, "utf8");
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      if (cmd.includes(s) && !stat.includes(") Z")) out.push(Number(name));
    } catch {
      // gone while we looked
    }
  }
  return out;
}
