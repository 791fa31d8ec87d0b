// The client against the built binary (TERMHELPER_BIN): run with
// `node --test test/` after `npm run build`, as make test-node does.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Termhelper, ErrorCode, isFinished } from "../lib/esm.mjs";
import { marker as markerOf, pidsWith, sleeps } from "./procs.mjs";

const watchdog = 60_000; // a guard against a hang, never a timing assertion

if (!process.env.TERMHELPER_BIN) {
  throw new Error("set TERMHELPER_BIN to the built binary (make test-node does)");
}

/** Starts a helper on a fresh root; closed after the test. */
async function start(t, opts = {}) {
  const root = mkdtempSync(join(tmpdir(), "termhelper-node-"));
  const { env, ...rest } = opts;
  const th = await Termhelper.start({
    root,
    // No login shell: the tests must not depend on this machine's rc files.
    env: { SHELL: "", TERMHELPER_CONFIG_DIR: join(root, ".cfg"), ...env },
    ...rest,
  });
  t.after(async () => {
    await th.close();
    rmSync(root, { recursive: true, force: true });
  });
  return { th, root };
}

/** Resolves with the first event for which pick returns true. */
function nextEvent(th, name, pick) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ${name} event within ${watchdog}ms`)), watchdog);
    const on = (e) => {
      if (pick(e)) {
        clearTimeout(timer);
        th.off(name, on);
        resolve(e);
      }
    };
    th.on(name, on);
  });
}

test("initialize reports the VERSION file's version", async (t) => {
  const { th, root } = await start(t);
  const version = readFileSync(new URL("../../../VERSION", import.meta.url), "utf8").trim();
  assert.equal(th.info.serverInfo.version, version);
  assert.equal(th.info.root, root);
  assert.equal(th.info.protocolVersion, 1);
});

test("run answers a finished command with its output and exit code", async (t) => {
  const { th } = await start(t);
  const r = await th.run({ command: "echo hello; exit 3" });
  assert.ok(isFinished(r), JSON.stringify(r));
  assert.equal(r.exitCode, 3);
  assert.match(r.output, /hello/);
  assert.match(r.summary, /^exit 3/);
});

test("a prompt is answered with write", async (t) => {
  const { th } = await start(t);
  let r = await th.run({ command: "printf 'Name? '; read name; echo \"hi $name\"" });
  while (!isFinished(r) && r.state !== "waiting") {
    r = await th.read({ sessionId: r.sessionId, yieldMs: 5000 });
  }
  assert.ok(!isFinished(r), `finished without asking: ${JSON.stringify(r)}`);
  assert.match(r.output, /Name\?/);
  r = await th.write({ sessionId: r.sessionId, input: "bob\n" });
  if (!isFinished(r)) {
    r = await th.read({ sessionId: r.sessionId, until: "exit" });
  }
  assert.ok(isFinished(r));
  assert.equal(r.exitCode, 0);
  assert.match(r.output, /hi bob/);
});

test("a background command's end comes as an exited event", async (t) => {
  const { th, root } = await start(t);
  const seen = [];
  th.on("exited", (e) => seen.push(e));
  // The command waits for the gate, opened after the answer: alive at its
  // yield however slow the machine.
  const gate = join(root, "gate");
  const r = await th.run({ command: `while [ ! -e ${gate} ]; do sleep 0.01; done; exit 4`, background: true, yieldMs: 50 });
  assert.ok(!isFinished(r), `finished too early: ${JSON.stringify(r)}`);
  assert.equal(r.state, "background");
  writeFileSync(gate, "");
  const id = r.sessionId;
  const e = seen.find((x) => x.sessionId === id) ?? (await nextEvent(th, "exited", (x) => x.sessionId === id));
  assert.equal(e.exitCode, 4);
  assert.match(e.summary, /^exit 4/);
});

test("the approval callback decides", async (t) => {
  const asked = [];
  const { th, root } = await start(t, {
    // The question for a line the policy asks about: with a sandbox in
    // force, touch runs confined without one.
    env: { TERMHELPER_SANDBOX: "off" },
    approval: (req) => {
      asked.push(req);
      return req.command.includes("forbidden") ? "deny" : "allow";
    },
  });
  const ok = await th.run({ command: "touch made.txt" });
  assert.ok(isFinished(ok) && ok.exitCode === 0, JSON.stringify(ok));
  assert.ok(existsSync(join(root, "made.txt")));
  await assert.rejects(th.run({ command: "touch forbidden.txt" }), (err) => {
    assert.equal(err.code, ErrorCode.ApprovalRefused);
    return true;
  });
  assert.ok(!existsSync(join(root, "forbidden.txt")));
  assert.deepEqual(asked.map((r) => r.command), ["touch made.txt", "touch forbidden.txt"]);
  assert.equal(asked[0].cwd, root);
  assert.ok(asked[0].reasons.length > 0);
  const check = await th.policyCheck({ command: "rm -rf /" });
  assert.equal(check.decision, "deny");
});

test("a spawn prefix runs the helper through another command", async (t) => {
  const bin = process.env.TERMHELPER_BIN;
  const { th } = await start(t, { spawn: ["env", "TH_VIA=prefix"], bin });
  const r = await th.run({ command: "printenv TH_VIA" });
  assert.ok(isFinished(r));
  assert.match(r.output, /prefix/);
});

test("close ends the helper and every tree", { skip: process.platform !== "linux" && "reads /proc" }, async (t) => {
  const { th } = await start(t);
  const marker = markerOf(7);
  // The tree ignores SIGHUP, so only a real kill of every tree ends it.
  const r = await th.run({ command: `trap '' HUP; sleep ${marker} & sleep ${marker}1; wait`, background: true, yieldMs: 100 });
  assert.ok(!isFinished(r));
  // Both sleeps, once the shell has started them: the answer may come first.
  let deadline = Date.now() + watchdog;
  while (sleeps(marker).length < 2) {
    assert.ok(Date.now() < deadline, `the sleeps never started: ${sleeps(marker)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  const closed = new Promise((resolve) => th.once("close", resolve));
  await th.close();
  await closed;
  deadline = Date.now() + watchdog;
  while (pidsWith(marker).length > 0 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 20));
  }
  const left = pidsWith(marker);
  for (const pid of left) process.kill(pid, "SIGKILL");
  assert.deepEqual(left, [], "processes left after close");
});

test("start rejects when the helper cannot start", async () => {
  const root = mkdtempSync(join(tmpdir(), "termhelper-node-"));
  try {
    await assert.rejects(
      Termhelper.start({ root, config: join(root, "no-such.toml"), stderr: "ignore", env: { SHELL: "" } }),
    );
    await assert.rejects(Termhelper.start({ root, bin: join(root, "no-such-binary") }), /no-such-binary does not exist/);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
