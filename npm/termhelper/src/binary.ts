// Finding the termhelper binary: TERMHELPER_BIN, else the one in the
// platform package npm installed next to this one (as esbuild does), with
// the fix in the message when it is not there or does not fit.
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { BinarySource } from "./errors.js";

/** This package's version: the platform package must have the same one. */
export const version: string = JSON.parse(readFileSync(join(__dirname, "..", "package.json"), "utf8")).version;

/** The platforms a binary is published for, as process.platform-process.arch. */
export const platforms = ["linux-x64", "linux-arm64", "darwin-x64", "darwin-arm64", "win32-x64", "win32-arm64"];

/** The platform package for this machine, such as "@termhelper/linux-x64". */
export function platformPackage(platform: string = process.platform, arch: string = process.arch): string {
  return `@termhelper/${platform}-${arch}`;
}

/** The binary's path inside its platform package. */
function binaryName(platform: string): string {
  return platform === "win32" ? "bin/termhelper.exe" : "bin/termhelper";
}

/** The path of the termhelper binary to run on this machine, and where it came from. */
export function locateBinary(env: Record<string, string | undefined> = process.env): { path: string; source: BinarySource } {
  if (env.TERMHELPER_BIN) {
    return { path: env.TERMHELPER_BIN, source: "TERMHELPER_BIN" };
  }
  const pkg = platformPackage();
  const here = `${process.platform}-${process.arch}`;
  if (!platforms.includes(here)) {
    throw new Error(
      `termhelper: no binary is published for ${here} (only ${platforms.join(", ")}). ` +
        `Build one from source (make build) and set TERMHELPER_BIN to it, or run it elsewhere with the spawn option.`,
    );
  }
  let manifest: string;
  try {
    manifest = require.resolve(`${pkg}/package.json`);
  } catch {
    throw new Error(
      `termhelper: the package ${pkg}, which holds the binary for this machine, is not installed. ` +
        `npm installs it as an optional dependency of termhelper: install again without --omit=optional, ` +
        `--no-optional or --ignore-optional (and with the lock file made on any platform: npm installs the one that fits), ` +
        `or set TERMHELPER_BIN to a termhelper binary.`,
    );
  }
  const theirs = JSON.parse(readFileSync(manifest, "utf8")).version;
  if (theirs !== version && version !== "0.0.0-dev") {
    throw new Error(
      `termhelper: ${pkg} is version ${theirs} but termhelper is ${version}: install both at the same version (npm install termhelper@${version}).`,
    );
  }
  const path = join(dirname(manifest), binaryName(process.platform));
  if (!existsSync(path)) {
    throw new Error(`termhelper: ${pkg} is installed but has no ${binaryName(process.platform)}: reinstall termhelper.`);
  }
  return { path, source: "package" };
}

/** The path of the termhelper binary to run on this machine. */
export function findBinary(env: Record<string, string | undefined> = process.env): string {
  return locateBinary(env).path;
}
