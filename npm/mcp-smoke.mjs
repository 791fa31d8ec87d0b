// Speaks MCP to a command that should be termhelper's MCP server, as a
// host would: initialize, tools/list, one tools/call, then end its input
// and wait for it to exit. Exits non-zero if any step is wrong.
// Usage: node npm/mcp-smoke.mjs ROOT COMMAND [ARG...]
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";

const [root, cmd, ...args] = process.argv.slice(2);
const watchdog = setTimeout(() => {
  console.error("mcp-smoke: no end within 60s");
  process.exit(1);
}, 60_000);
const child = spawn(cmd, args, { stdio: ["pipe", "pipe", "inherit"], env: { ...process.env, SHELL: "" } });
child.on("error", (err) => {
  console.error(`mcp-smoke: ${cmd}: ${err.message}`);
  process.exit(1);
});
const answers = new Map();
createInterface({ input: child.stdout }).on("line", (line) => {
  const m = JSON.parse(line);
  answers.get(m.id)?.(m);
});
let next = 0;
function call(method, params) {
  const id = ++next;
  child.stdin.write(JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\n");
  return new Promise((resolve) => answers.set(id, resolve));
}
function check(ok, what, m) {
  if (!ok) {
    console.error(`mcp-smoke: ${what}: ${JSON.stringify(m)}`);
    process.exit(1);
  }
}

const init = await call("initialize", { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "mcp-smoke", version: "1" } });
check(init.result?.serverInfo?.name === "termhelper", "initialize", init);
child.stdin.write(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) + "\n");
const tools = await call("tools/list", {});
check(tools.result?.tools?.some((t) => t.name === "terminal"), "tools/list", tools);
const ran = await call("tools/call", { name: "terminal", arguments: { command: "pwd -P" } });
const out = ran.result?.structuredContent;
check(out?.exit_code === 0 && out.output.trim() === root, `tools/call pwd in ${root}`, ran);
child.stdin.end();
const code = await new Promise((resolve) => child.on("exit", resolve));
check(code === 0, "exit status", code);
clearTimeout(watchdog);
console.log(`mcp-smoke: ok (${init.result.serverInfo.version})`);
