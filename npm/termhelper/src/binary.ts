// Finding the termhelper binary: TERMHELPER_BIN, else the one in the
// platform package npm installed next to this one.
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);

/** The platform package for this machine, such as "termhelper-linux-x64". */
export function platformPackage(platform: string = process.platform, arch: string = process.arch): string {
  return `termhelper-${platform}-${arch}`;
}

/** The binary's path inside its platform package. */
function binaryName(platform: string): string {
  return platform === "win32" ? "bin/termhelper.exe" : "bin/termhelper";
}

/** The path of the termhelper binary to run on this machine. */
export function findBinary(env: NodeJS.ProcessEnv = process.env): string {
  if (env.TERMHELPER_BIN) {
    return env.TERMHELPER_BIN;
  }
  const pkg = platformPackage();
  try {
    return require.resolve(`${pkg}/${binaryName(process.platform)}`);
  } catch {
    throw new Error(
      `termhelper: no binary for ${process.platform}-${process.arch}: the optional dependency ${pkg} ` +
        `is not installed (was npm run with --omit=optional or --no-optional?); set TERMHELPER_BIN to a termhelper binary`,
    );
  }
}
