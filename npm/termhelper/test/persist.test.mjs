// --persist through the client: a background session outlives the
// connection that started it, and the next start with the same root
// reattaches to it; the spawn prefixes for docker exec and kubectl exec.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Termhelper, dockerExec, kubectlExec, ErrorCode, ResponseError } from "../lib/esm.mjs";
import { marker as markerOf, pidsWith } from "./procs.mjs";

const watchdog = 60_000; // a guard against a hang, never a timing assertion

function persistent(t) {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "termhelper-node-persist-")));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const env = { SHELL: "", TERMHELPER_CONFIG_DIR: join(root, ".cfg"), TERMHELPER_PERSIST_DIR: join(root, ".rdv") };
  return (persist) => Termhelper.start({ root, env, persist });
}

async function gone(marker) {
  const deadline = Date.now() + watchdog;
  while (pidsWith(marker).length > 0) {
    if (Date.now() > deadline) throw new Error(`processes with ${marker} left`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

test("persist: a session outlives its connection and the next start reattaches", { skip: process.platform === "win32" }, async (t) => {
  const start = persistent(t);
  const m = markerOf(901);
  const first = await start("3s");
  const r = await first.run({ command: `while :; do echo tick; sleep 0.05; done # ${m}`, background: true, yieldMs: 0 });
  assert.ok("sessionId" in r);
  await first.close(); // this connection only
  assert.ok(pidsWith(m).length > 0, "the session ended with its connection");
  const again = await start("3s");
  t.after(() => again.close());
  const { sessions } = await again.list();
  assert.ok(sessions.some((s) => s.sessionId === r.sessionId), JSON.stringify(sessions));
  const read = await again.read({ sessionId: r.sessionId, yieldMs: 10_000 });
  assert.match(read.output, /tick/);
  await again.kill({ sessionId: r.sessionId });
  await gone(m);
});

test("persist: other settings are refused with the setting named", { skip: process.platform === "win32" }, async (t) => {
  const start = persistent(t);
  const first = await start("3s");
  t.after(() => first.close());
  await assert.rejects(start("4s"), (err) => {
    assert.ok(err instanceof ResponseError);
    assert.equal(err.code, ErrorCode.HelperRefused);
    assert.deepEqual(err.data, { setting: "persist" });
    return true;
  });
});

test("docker exec and kubectl exec spawn prefixes", () => {
  assert.deepEqual(dockerExec("app"), ["docker", "exec", "-i", "app"]);
  assert.deepEqual(dockerExec("app", { user: "dev", workdir: "/src" }), ["docker", "exec", "-i", "--user", "dev", "--workdir", "/src", "app"]);
  assert.deepEqual(kubectlExec("web-0"), ["kubectl", "exec", "-i", "web-0", "--"]);
  assert.deepEqual(kubectlExec("web-0", { namespace: "dev", container: "app", context: "kind" }),
    ["kubectl", "--context", "kind", "exec", "-i", "-n", "dev", "-c", "app", "web-0", "--"]);
});
