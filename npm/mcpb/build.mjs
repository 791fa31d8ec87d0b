// Builds a .mcpb bundle (a Claude Desktop extension) per platform from a
// make dist folder: the platform's binary as server/termhelper, a
// manifest.json that runs it with --mcp and asks the user for the project
// folder, and the LICENSE; each manifest is validated by the MCPB tool
// itself before it is packed.
// Usage: node npm/mcpb/build.mjs DIST   (bundles land in DIST)
import { execFileSync } from "node:child_process";
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { targets } from "../targets.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, "../..");
const dist = resolve(process.argv[2] ?? join(repo, "dist"));
const version = readFileSync(join(repo, "VERSION"), "utf8").trim();
const mcpb = join(here, "node_modules", ".bin", "mcpb");

/** The manifest for one platform: the binary with --mcp, the root from the user. */
export function manifest(os, exe) {
  const entry = `server/termhelper${exe}`;
  return {
    manifest_version: "0.3",
    name: "termhelper",
    display_name: "termhelper",
    version,
    description: "Run shell commands in a real terminal inside one project folder, with output a model can read.",
    long_description:
      "termhelper runs each command in a real pseudo-terminal inside the project folder you choose, answers " +
      "prompts, keeps dev servers in the background, caps and cleans what comes back, masks secrets, asks before " +
      "commands that need approval, and never leaves a process behind.",
    author: { name: "The termhelper authors", url: "https://github.com/termhelper/termhelper" },
    repository: { type: "git", url: "https://github.com/termhelper/termhelper" },
    homepage: "https://github.com/termhelper/termhelper",
    documentation: "https://github.com/termhelper/termhelper/blob/main/docs/protocol.md",
    support: "https://github.com/termhelper/termhelper/issues",
    license: "MIT",
    keywords: ["terminal", "shell", "pty", "commands"],
    server: {
      type: "binary",
      entry_point: entry,
      mcp_config: {
        command: "${__dirname}/" + entry,
        args: ["--mcp", "--root", "${user_config.project}"],
      },
    },
    tools: [{ name: "terminal", description: "Run shell commands in a real terminal inside the project, and work with the ones still running." }],
    user_config: {
      project: {
        type: "directory",
        title: "Project folder",
        description: "The folder commands run in: every command's working directory stays inside it.",
        required: true,
      },
    },
    compatibility: { platforms: [os] },
  };
}

function bundle(t) {
  const exe = t.goos === "windows" ? ".exe" : "";
  const built = join(dist, `termhelper-${t.goos}-${t.goarch}${exe}`);
  if (!existsSync(built)) {
    console.error(`npm/mcpb/build.mjs: no ${built}: no bundle for ${t.os}-${t.cpu}`);
    return;
  }
  const stage = join(dist, "mcpb-stage", `${t.os}-${t.cpu}`);
  mkdirSync(join(stage, "server"), { recursive: true });
  copyFileSync(built, join(stage, "server", `termhelper${exe}`));
  chmodSync(join(stage, "server", `termhelper${exe}`), 0o755);
  copyFileSync(join(repo, "LICENSE"), join(stage, "LICENSE"));
  writeFileSync(join(stage, "manifest.json"), JSON.stringify(manifest(t.os, exe), null, 2) + "\n");
  execFileSync(mcpb, ["validate", join(stage, "manifest.json")], { stdio: ["ignore", "ignore", "inherit"] });
  const out = join(dist, `termhelper-${version}-${t.os}-${t.cpu}.mcpb`);
  execFileSync(mcpb, ["pack", stage, out], { stdio: ["ignore", "ignore", "inherit"] });
  console.log(`${out}: ${t.os} ${t.cpu}`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  rmSync(join(dist, "mcpb-stage"), { recursive: true, force: true });
  targets.forEach(bundle);
  rmSync(join(dist, "mcpb-stage"), { recursive: true, force: true });
}
