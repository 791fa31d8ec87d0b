// Packs the npm packages from a make dist folder: one package per platform,
// under the @termhelper scope, holding only its binary (with os/cpu so npm
// installs just the right one), and the main package, whose
// optionalDependencies name them all at the same version and whose
// postinstall checks that the binary is there and runs. The version comes
// from the VERSION file alone; every package carries the LICENSE.
// Usage: node npm/pack.mjs DIST   (tarballs land in DIST/npm)
import { execFileSync } from "node:child_process";
import { chmodSync, copyFileSync, cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { targets } from "./targets.mjs";

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const dist = resolve(process.argv[2] ?? join(repo, "dist"));
const version = readFileSync(join(repo, "VERSION"), "utf8").trim();

const main = JSON.parse(readFileSync(join(repo, "npm/termhelper/package.json"), "utf8"));
const license = join(repo, "LICENSE");
const common = {
  version,
  license: main.license,
  homepage: main.homepage,
  bugs: main.bugs,
  engines: main.engines,
  // Scoped packages are private unless said otherwise.
  publishConfig: { access: "public" },
};

function write(file, text) {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
}

function pack(dir) {
  execFileSync("npm", ["pack", "--silent", "--pack-destination", join(dist, "npm")], { cwd: dir, stdio: ["ignore", "inherit", "inherit"] });
}

function platformPackage(t) {
  const name = `@termhelper/${t.os}-${t.cpu}`;
  const exe = t.goos === "windows" ? ".exe" : "";
  const dir = join(dist, "npm-stage", `${t.os}-${t.cpu}`);
  const bin = join(dir, "bin", `termhelper${exe}`);
  const built = join(dist, `termhelper-${t.goos}-${t.goarch}${exe}`);
  if (!existsSync(built)) {
    // make dist DIST_TARGETS=... built only some: pack those.
    console.error(`npm/pack.mjs: no ${built}: ${name} not packed`);
    return name;
  }
  mkdirSync(dirname(bin), { recursive: true });
  copyFileSync(built, bin);
  chmodSync(bin, 0o755);
  const pkg = {
    name,
    ...common,
    repository: { ...main.repository, directory: "npm" },
    description: `The termhelper binary for ${t.os} ${t.cpu}; installed by the termhelper package`,
    os: [t.os],
    cpu: [t.cpu],
    files: ["bin"],
    // Yarn's Plug'n'Play must unpack it: a binary runs from a real file.
    preferUnplugged: true,
  };
  write(join(dir, "package.json"), JSON.stringify(pkg, null, 2) + "\n");
  write(join(dir, "README.md"), `# ${name}\n\nThe \`termhelper\` binary for ${t.os} ${t.cpu}. Install \`termhelper\`, not this package: npm picks the right platform package itself.\n\nMIT licensed.\n`);
  copyFileSync(license, join(dir, "LICENSE"));
  pack(dir);
  return name;
}

function mainPackage(names) {
  const src = join(repo, "npm/termhelper");
  const dir = join(dist, "npm-stage", "termhelper");
  cpSync(join(src, "lib"), join(dir, "lib"), { recursive: true });
  copyFileSync(join(src, "README.md"), join(dir, "README.md"));
  copyFileSync(license, join(dir, "LICENSE"));
  const pkg = { ...main, version, optionalDependencies: Object.fromEntries(names.map((n) => [n, version])) };
  delete pkg.devDependencies;
  // The install-time check (lib/install.js), as esbuild has one.
  pkg.scripts = { postinstall: "node lib/install.js" };
  write(join(dir, "package.json"), JSON.stringify(pkg, null, 2) + "\n");
  pack(dir);
}

rmSync(join(dist, "npm-stage"), { recursive: true, force: true });
rmSync(join(dist, "npm"), { recursive: true, force: true });
mkdirSync(join(dist, "npm"), { recursive: true });
mainPackage(targets.map(platformPackage));
rmSync(join(dist, "npm-stage"), { recursive: true, force: true });
