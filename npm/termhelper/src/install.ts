// The install-time check, as esbuild has one: the platform package's binary
// is there, runs, and is this package's version; otherwise the install
// fails with what to do. On a platform no binary is published for it only
// warns: the client still works with a binary given by path or reached
// through a spawn prefix (ssh, docker exec).
import { execFileSync } from "node:child_process";
import { locateBinary, platforms, version } from "./binary.js";
import { spawnError } from "./errors.js";

function check(): number {
  if (!platforms.includes(`${process.platform}-${process.arch}`) && !process.env.TERMHELPER_BIN) {
    console.warn(`termhelper: no binary is published for ${process.platform}-${process.arch}; set TERMHELPER_BIN or use the spawn option.`);
    return 0;
  }
  let found: ReturnType<typeof locateBinary>;
  try {
    found = locateBinary();
  } catch (err) {
    console.error((err as Error).message);
    return 1;
  }
  let out: string;
  try {
    out = execFileSync(found.path, ["--version"], { encoding: "utf8", timeout: 30_000 });
  } catch (err) {
    const e = err as Error & { code?: string };
    console.error(e.code ? spawnError(e, found.path, found.source).message : `termhelper: ${found.path} --version failed: ${e.message}`);
    return 1;
  }
  const want = `termhelper ${version} (`;
  if (version !== "0.0.0-dev" && !out.startsWith(want)) {
    console.error(`termhelper: ${found.path} says "${out.trim()}", not termhelper ${version}: reinstall termhelper@${version}.`);
    return 1;
  }
  return 0;
}

process.exitCode = check();
