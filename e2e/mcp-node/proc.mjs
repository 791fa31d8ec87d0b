// What the tests share to find their processes in the process table.
import { readdirSync, readFileSync } from 'node:fs';

// watchdog bounds every wait; it guards against a hang, it times nothing.
export const watchdog = 30_000;

// marker is a sleep length no other process uses, to find our processes.
export const marker = () => `${1000 + Math.floor(Math.random() * 9000)}.${process.pid}`;

// pidsWith lists the processes whose command line holds m.
export function pidsWith(m) {
  const pids = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/cmdline`, 'utf8').includes(m)) pids.push(name);
    } catch {
      // the process ended while the list was read
    }
  }
  return pids;
}
