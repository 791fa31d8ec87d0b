// The process table as the tests read it (Linux).
import { readFileSync, readdirSync } from "node:fs";

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
