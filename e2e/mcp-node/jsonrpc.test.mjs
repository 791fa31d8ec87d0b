// termhelper's native protocol driven by vscode-jsonrpc, as a VS Code
// extension drives it: a cancelled token sends $/cancelRequest, the call
// answers -32800 and its command's tree is gone. TERMHELPER_BIN names the
// binary.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CancellationTokenSource,
  createMessageConnection,
  ResponseError,
  StreamMessageReader,
  StreamMessageWriter,
} from 'vscode-jsonrpc/node.js';
import { marker, pidsWith, watchdog } from './proc.mjs';

const bin = process.env.TERMHELPER_BIN;
assert.ok(bin, 'TERMHELPER_BIN must name the termhelper binary');

async function until(what, cond) {
  const end = Date.now() + watchdog;
  while (!(await cond())) {
    assert.ok(Date.now() < end, `${what}: not within the watchdog`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

function connect(t) {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'termhelper-jsonrpc-')));
  const child = spawn(bin, ['--root', root], {
    env: { ...process.env, TERMHELPER_CONFIG_DIR: join(root, '.cfg'), SHELL: '' },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const conn = createMessageConnection(new StreamMessageReader(child.stdout), new StreamMessageWriter(child.stdin));
  conn.listen();
  t.after(() => {
    conn.dispose();
    child.stdin.end();
    child.kill();
    rmSync(root, { recursive: true, force: true });
  });
  return conn;
}

test('a cancelled token ends exec/run with -32800 and its tree', async (t) => {
  const conn = connect(t);
  await conn.sendRequest('initialize', { clientInfo: { name: 'vscode-jsonrpc-e2e', version: '1' } });
  const m = marker();
  const command = `sleep ${m} & sleep ${m}; wait`;
  const source = new CancellationTokenSource();
  const run = conn.sendRequest('exec/run', { command }, source.token);
  let listed;
  await until('the foreground command listed', async () => {
    const { sessions } = await conn.sendRequest('session/list', {});
    listed = sessions.find((s) => s.command === command);
    return listed !== undefined && pidsWith(m).length >= 3; // the shell and its two sleeps
  });
  assert.equal(listed.state, 'running');
  assert.ok(listed.sessionId, 'listed with its sessionId');
  source.cancel();
  await assert.rejects(run, (err) => err instanceof ResponseError && err.code === -32800);
  assert.deepEqual(pidsWith(m), [], 'the tree is gone when the call answers');
});
