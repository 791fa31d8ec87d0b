#!/usr/bin/env node
// The termhelper command: runs the platform binary with the same arguments
// and stdio, and ends as it ended.
import { spawnSync } from "node:child_process";
import { locateBinary } from "./binary.js";
import { spawnError } from "./errors.js";

function main(): number {
  let found: ReturnType<typeof locateBinary>;
  try {
    found = locateBinary();
  } catch (err) {
    console.error((err as Error).message);
    return 1;
  }
  const res = spawnSync(found.path, process.argv.slice(2), { stdio: "inherit" });
  if (res.error) {
    console.error(spawnError(res.error, found.path, found.source).message);
    return 1;
  }
  if (res.signal) {
    // End the same way, so a shell sees the signal, not a plain exit code.
    process.kill(process.pid, res.signal);
  }
  return res.status ?? 1;
}

process.exitCode = main();
