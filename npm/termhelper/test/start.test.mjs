// Starting the helper: what a host sees when the binary is missing, not
// executable, or speaks another protocol, and how calls are given up.
import { test } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as esm from "../lib/esm.mjs";
import { Termhelper, ErrorCode, PROTOCOL_VERSION, ResponseError, isFinished } from "../lib/esm.mjs";
import { marker as markerOf, pidsWith } from "./procs.mjs";

const require = createRequire(import.meta.url);
const watchdog = 60_000; // a guard against a hang, never a timing assertion

function tempRoot(t) {
  const root = mkdtempSync(join(tmpdir(), "termhelper-node-"));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  return root;
}

async function start(t, opts = {}) {
  const root = tempRoot(t);
  const th = await Termhelper.start({ root, env: { SHELL: "", TERMHELPER_CONFIG_DIR: join(root, ".cfg") }, ...opts });
  t.after(() => th.close());
  return { th, root };
}

/** Waits for a file the command creates: the event itself, with a watchdog. */
async function appears(path) {
  const deadline = Date.now() + watchdog;
  while (!existsSync(path)) {
    if (Date.now() > deadline) throw new Error(`${path} did not appear within ${watchdog}ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

test("the ESM and CommonJS entries are one module", () => {
  const cjs = require("termhelper");
  const names = (m) => Object.keys(m).filter((k) => k !== "__esModule" && k !== "default").sort();
  assert.deepEqual(names(esm), names(cjs));
  assert.equal(esm.Termhelper, cjs.Termhelper);
  assert.equal(esm.ResponseError, cjs.ResponseError);
});

test("a missing binary says so and what to do", async (t) => {
  const bin = join(tempRoot(t), "nowhere", "termhelper");
  await assert.rejects(Termhelper.start({ bin }), (err) => {
    assert.equal(err.code, "ENOENT");
    assert.match(err.message, /does not exist\. The bin option must name a termhelper binary/);
    assert.ok(err.message.includes(bin));
    return true;
  });
});

test("an answer that comes after the helper's exit is read", async (t) => {
  // A stand-in that refuses initialize, as a helper refusing a connection
  // does, and exits at once, its answer still on the way (here a child
  // of its own writes it a little later): the answer must win.
  const bin = join(tempRoot(t), "refuses");
  writeFileSync(bin, `#!${process.execPath}
const { spawn } = require("node:child_process");
process.stdin.once("data", (b) => {
  const body = b.toString().split("\\r\\n\\r\\n")[1];
  const id = JSON.parse(body).id;
  const msg = JSON.stringify({ jsonrpc: "2.0", id, error: { code: -32008, message: "refused", data: { setting: "persist" } } });
  const frame = "Content-Length: " + Buffer.byteLength(msg) + "\\r\\n\\r\\n" + msg;
  spawn(process.execPath, ["-e", "setTimeout(() => process.stdout.write(" + JSON.stringify(frame) + "), 50)"],
    { stdio: ["ignore", "inherit", "inherit"] });
  process.exit(3);
});
`);
  chmodSync(bin, 0o755);
  await assert.rejects(Termhelper.start({ bin, root: tempRoot(t) }), (err) => {
    assert.ok(err instanceof ResponseError, String(err));
    assert.equal(err.code, ErrorCode.HelperRefused);
    return true;
  });
});

test("TERMHELPER_BIN naming nothing says to fix or unset it", async (t) => {
  const bin = join(tempRoot(t), "gone");
  const saved = process.env.TERMHELPER_BIN;
  process.env.TERMHELPER_BIN = bin;
  t.after(() => {
    process.env.TERMHELPER_BIN = saved;
  });
  await assert.rejects(Termhelper.start({}), /TERMHELPER_BIN must name a termhelper binary; unset it/);
});

test("a binary that is not executable says chmod", { skip: process.platform === "win32" && "no exec bit" }, async (t) => {
  const bin = join(tempRoot(t), "termhelper");
  writeFileSync(bin, "#!/bin/sh\n");
  chmodSync(bin, 0o644);
  await assert.rejects(Termhelper.start({ bin }), (err) => {
    assert.equal(err.code, "EACCES");
    assert.match(err.message, /is not executable \(EACCES\)\. Make it executable \(chmod \+x /);
    return true;
  });
});

test("a spawn prefix that is not installed is named", async () => {
  await assert.rejects(Termhelper.start({ spawn: ["no-such-remote-shell-xyz", "host"] }), /spawn prefix's command no-such-remote-shell-xyz does not exist/);
});

/** A helper that answers initialize with another protocol version. */
function otherProtocol(t, version) {
  const bin = join(tempRoot(t), "old-termhelper");
  writeFileSync(
    bin,
    `#!${process.execPath}
let buf = "";
process.stdin.on("data", (d) => {
  buf += d;
  const at = buf.indexOf("\\r\\n\\r\\n");
  if (at < 0) return;
  const n = Number(/Content-Length: (\\d+)/.exec(buf)[1]);
  if (buf.length < at + 4 + n) return;
  const req = JSON.parse(buf.slice(at + 4, at + 4 + n));
  const body = JSON.stringify({ jsonrpc: "2.0", id: req.id, result: {
    serverInfo: { name: "termhelper", version: "9.9.9" }, protocolVersion: ${version},
    platform: { os: "linux", arch: "amd64", shell: "/bin/sh", pty: "unix-pty" }, root: "/", limits: {} } });
  process.stdout.write("Content-Length: " + Buffer.byteLength(body) + "\\r\\n\\r\\n" + body);
});
`,
  );
  chmodSync(bin, 0o755);
  return bin;
}

test("start refuses a helper of another protocol version", { skip: process.platform === "win32" && "a script as the binary" }, async (t) => {
  const bin = otherProtocol(t, PROTOCOL_VERSION + 1);
  await assert.rejects(Termhelper.start({ bin }), (err) => {
    assert.match(err.message, /speaks protocol version 2 \(termhelper 9\.9\.9\), but this client speaks version 1/);
    return true;
  });
});

test("an aborted run rejects with the signal's reason and its tree ends", async (t) => {
  const { th, root } = await start(t);
  const marker = markerOf(3);
  const ac = new AbortController();
  // A cap far beyond the watchdog: only the cancellation can end it in time.
  const run = th.run({ command: `touch started; sleep ${marker}`, timeoutMs: 600_000 }, { signal: ac.signal });
  await appears(join(root, "started"));
  ac.abort();
  await assert.rejects(run, (err) => err.name === "AbortError");
  // The helper answers $/cancelRequest by ending the command's whole tree.
  if (process.platform !== "linux") return;
  const deadline = Date.now() + watchdog;
  while (pidsWith(marker).length > 0) {
    if (Date.now() > deadline) throw new Error(`the cancelled command still runs: ${pidsWith(marker)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
});

test("an aborted read ends the wait, not the session", async (t) => {
  const { th } = await start(t);
  const r = await th.run({ command: "read x; echo got $x", background: true, yieldMs: 0 });
  assert.ok(!isFinished(r), JSON.stringify(r));
  const ac = new AbortController();
  const read = th.read({ sessionId: r.sessionId, until: "exit" }, { signal: ac.signal });
  ac.abort(new Error("stop pressed"));
  await assert.rejects(read, /stop pressed/);
  const w = await th.write({ sessionId: r.sessionId, input: "more\n" });
  const end = isFinished(w) ? w : await th.read({ sessionId: r.sessionId, until: "exit" });
  assert.ok(isFinished(end));
  assert.match(end.output, /got more/);
});

test("a signal already aborted sends nothing", async (t) => {
  const { th, root } = await start(t);
  const ac = new AbortController();
  ac.abort();
  await assert.rejects(th.run({ command: "touch ran" }, { signal: ac.signal }), (err) => err.name === "AbortError");
  const r = await th.run({ command: "ls" });
  assert.ok(isFinished(r) && !r.output.includes("ran"), JSON.stringify(r));
  assert.ok(!existsSync(join(root, "ran")));
});

test("a refused request is a ResponseError with the code and data", async (t) => {
  const { th } = await start(t);
  await assert.rejects(th.run({ command: "sudo true" }), (err) => {
    assert.ok(err instanceof ResponseError);
    assert.equal(err.code, ErrorCode.BlockedByPolicy);
    assert.ok(Array.isArray(err.data.reasons) && err.data.reasons.length > 0, JSON.stringify(err.data));
    return true;
  });
  await assert.rejects(th.read({ sessionId: "no-such" }), (err) => err.code === ErrorCode.NoSuchSession);
});
