// The .mcpb bundle for this machine, as Claude Desktop uses it: unpacked,
// its manifest validated by the MCPB tool, and the server it names started
// with the arguments it names (the project folder filled in) and spoken to
// over MCP. Needs make dist first: run by make test-node.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, realpathSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { targets } from "../../targets.mjs";

const run = promisify(execFile);
const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, "../../..");
const dist = resolve(process.env.TERMHELPER_DIST ?? join(repo, "dist"));
const version = readFileSync(join(repo, "VERSION"), "utf8").trim();
const mcpb = join(here, "..", "node_modules", ".bin", "mcpb");
const watchdog = 120_000; // a guard against a hang, never a timing assertion

function temp(t) {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "termhelper-mcpb-")));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test("the bundle for this machine unpacks to a server that serves MCP in the folder the user picks", async (t) => {
  const file = join(dist, `termhelper-${version}-${process.platform}-${process.arch}.mcpb`);
  const out = temp(t);
  await run(mcpb, ["unpack", file, out], { timeout: watchdog });
  await run(mcpb, ["validate", join(out, "manifest.json")], { timeout: watchdog });
  const m = JSON.parse(readFileSync(join(out, "manifest.json"), "utf8"));
  assert.equal(m.version, version);
  assert.deepEqual(m.compatibility.platforms, [process.platform]);
  assert.equal(m.user_config.project.type, "directory");
  assert.equal(m.user_config.project.required, true);
  assert.ok(m.server.mcp_config.args.includes("--mcp"), JSON.stringify(m.server));
  const project = temp(t);
  const fill = (s) => s.replaceAll("${__dirname}", out).replaceAll("${user_config.project}", project);
  const command = fill(m.server.mcp_config.command);
  assert.equal(command, join(out, m.server.entry_point));
  if (process.platform !== "win32") assert.ok(statSync(command).mode & 0o111, "the server is not executable");
  const args = m.server.mcp_config.args.map(fill);
  const smoke = join(repo, "npm", "mcp-smoke.mjs");
  const { stdout } = await run(process.execPath, [smoke, project, command, ...args], { timeout: watchdog });
  assert.match(stdout, new RegExp(`mcp-smoke: ok \\(${version.replaceAll(".", "\\.")}\\)`));
});

test("every platform has its bundle", () => {
  for (const p of targets.map((t) => `${t.os}-${t.cpu}`)) {
    assert.ok(statSync(join(dist, `termhelper-${version}-${p}.mcpb`)).size > 0, p);
  }
});
