// termhelper --mcp driven by the TypeScript SDK's client over a real pipe:
// every call shape of PROTOCOL.md section 9 as an MCP host built on
// @modelcontextprotocol/sdk makes it. TERMHELPER_BIN names the binary.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  ElicitRequestSchema,
  LATEST_PROTOCOL_VERSION,
  LoggingMessageNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { marker, pidsWith, watchdog } from './proc.mjs';

const bin = process.env.TERMHELPER_BIN;
assert.ok(bin, 'TERMHELPER_BIN must name the termhelper binary');

function transport(root, env = {}) {
  return new StdioClientTransport({
    command: bin,
    args: ['--mcp', '--root', root],
    env: { TERMHELPER_CONFIG_DIR: join(root, '.cfg'), SHELL: '', ...env },
    stderr: 'inherit',
  });
}

// connect starts the binary in a fresh project root and initializes a
// client; opts.elicit answers elicitation/create (the capability is
// declared only then); opts.env adds to the helper's environment. The
// tools are listed, so the SDK checks every
// structuredContent against the tool's outputSchema.
async function connect(t, opts = {}) {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'termhelper-mcp-node-')));
  const capabilities = opts.elicit ? { elicitation: {} } : {};
  const client = new Client({ name: 'mcp-node-e2e', version: '1' }, { capabilities });
  if (opts.elicit) client.setRequestHandler(ElicitRequestSchema, opts.elicit);
  const tr = transport(root, opts.env);
  await client.connect(tr, { timeout: watchdog });
  await client.listTools();
  t.after(async () => {
    await client.close();
    rmSync(root, { recursive: true, force: true });
  });
  const call = (args, options = {}) =>
    client.callTool({ name: 'terminal', arguments: args }, undefined, { timeout: watchdog, ...options });
  return { client, root, call, tr };
}

const text = (res) => res.content.filter((c) => c.type === 'text').map((c) => c.text).join('');

// gated makes command wait until open() before it runs: a test can take an
// answer while the command is surely alive, however slow the machine.
function gated(root, command) {
  const gate = join(root, `gate-${Math.random().toString(36).slice(2)}`);
  return { command: `while [ ! -e ${gate} ]; do sleep 0.01; done; ${command}`, open: () => writeFileSync(gate, '') };
}

async function noneLeft(m) {
  const end = Date.now() + watchdog;
  while (pidsWith(m).length > 0) {
    assert.ok(Date.now() < end, `processes left with marker ${m}: ${pidsWith(m)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

test('initialize negotiates the SDK default version', async (t) => {
  const { client } = await connect(t);
  assert.equal(client.getServerVersion().name, 'termhelper');
  assert.ok(client.getServerCapabilities().tools, 'tools capability');
  assert.ok(client.getServerCapabilities().logging, 'logging capability');
  const raw = await rawInitialize(t, LATEST_PROTOCOL_VERSION);
  assert.equal(raw.protocolVersion, LATEST_PROTOCOL_VERSION);
});

test('initialize keeps an older version a client asks for', async (t) => {
  assert.equal((await rawInitialize(t, '2025-03-26')).protocolVersion, '2025-03-26');
  assert.equal((await rawInitialize(t, '2024-11-05')).protocolVersion, '2024-11-05');
  assert.equal((await rawInitialize(t, '2023-01-01')).protocolVersion, LATEST_PROTOCOL_VERSION,
    'an unknown version gets the newest');
});

// rawInitialize sends initialize with the given version through the SDK's
// stdio transport (the Client always asks for the newest) and returns the
// server's answer.
async function rawInitialize(t, version) {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'termhelper-mcp-node-')));
  const tr = transport(root);
  t.after(async () => {
    await tr.close();
    rmSync(root, { recursive: true, force: true });
  });
  const answer = new Promise((resolve, reject) => {
    tr.onmessage = (m) => (m.id === 1 ? resolve(m) : undefined);
    tr.onerror = reject;
    setTimeout(() => reject(new Error('no answer to initialize')), watchdog).unref();
  });
  await tr.start();
  await tr.send({ jsonrpc: '2.0', id: 1, method: 'initialize',
    params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
  const m = await answer;
  assert.equal(m.error, undefined, JSON.stringify(m.error));
  return m.result;
}

test('tools/list: one terminal tool with its schema', async (t) => {
  const { client } = await connect(t);
  const { tools } = await client.listTools();
  assert.equal(tools.length, 1);
  const [tool] = tools;
  assert.equal(tool.name, 'terminal');
  assert.match(tool.description, /secret: ask the user/);
  const { type, properties } = tool.inputSchema;
  assert.equal(type, 'object');
  for (const p of ['command', 'cwd', 'env', 'background', 'timeout_ms', 'yield_ms', 'mode', 'ready_pattern',
    'ready_port', 'session_id', 'input', 'secret', 'until', 'kill', 'screen', 'list']) {
    assert.ok(properties[p], `property ${p}`);
    assert.ok(properties[p].description, `description of ${p}`);
  }
  assert.deepEqual(properties.mode.enum, ['pty', 'pipes']);
  assert.deepEqual(properties.until.enum, ['exit', 'stable']);
  assert.equal(tool.outputSchema?.type, 'object');
  assert.equal(tool.outputSchema.properties.exit_code.type, 'integer');
});

test('a coloured command that exits 3', async (t) => {
  const { call } = await connect(t);
  const res = await call({ command: "printf '\\033[1;31mred\\033[0m\\n'; exit 3" });
  assert.ok(!res.isError, 'a failed command is a normal result');
  assert.match(text(res), /^red\nexit 3 · \d+ms$/);
  assert.equal(res.structuredContent.exit_code, 3);
  assert.equal(res.structuredContent.output, 'red\n');
});

// Claude Code and Codex show a model only structuredContent, Gemini CLI
// only the text: neither carries what a model does not need.
test('echo hi: nothing null, false or repeated', async (t) => {
  const { call } = await connect(t);
  const res = await call({ command: 'echo hi' });
  // duration_ms is absent, as a default, when the command took under a millisecond.
  const keys = Object.keys(res.structuredContent).filter((k) => k !== 'duration_ms').sort();
  assert.deepEqual(keys, ['cursor', 'exit_code', 'output']);
  assert.equal(res.structuredContent.exit_code, 0);
  assert.equal(res.structuredContent.output, 'hi\n');
  assert.match(text(res), /^hi\nexit 0 · \d+ms$/);
});

test('a failing build keeps its exit code and error line in both forms', async (t) => {
  const { call } = await connect(t);
  const res = await call({ command:
    "printf 'main.c:1:25: error: undeclared_name undeclared\\nmake: *** [Makefile:2: main] Error 1\\n' >&2; exit 2" });
  assert.ok(!res.isError, text(res));
  for (const form of [text(res), JSON.stringify(res.structuredContent)]) {
    assert.match(form, /main\.c:1:25: error: undeclared_name undeclared/);
    assert.match(form, /make: \*\*\* \[Makefile:2: main\] Error 1/);
  }
  assert.equal(res.structuredContent.exit_code, 2);
  assert.match(text(res), /\nexit 2 · \d+ms$/);
});

test('a prompt answered', async (t) => {
  const { call } = await connect(t);
  let res = await call({ command: "printf 'Name? '; read n; echo \"hi $n\"" });
  const id = res.structuredContent.session_id;
  assert.equal(res.structuredContent.state, 'waiting', text(res));
  assert.ok(text(res).endsWith(`session ${id} waiting for input: "Name?"; ended if left without a call for 60 s`), text(res));
  res = await call({ session_id: id, input: 'Ada\n' });
  assert.match(text(res), /hi Ada\nexit 0 · /);
  assert.equal(res.structuredContent.exit_code, 0);
});

test('a background loop polled, listed and killed', async (t) => {
  const { call } = await connect(t);
  const m = marker();
  let res = await call({ command: `while true; do echo tick; sleep 0.1; done & sleep ${m}`,
    background: true, yield_ms: 300 });
  const id = res.structuredContent.session_id;
  assert.equal(res.structuredContent.state, 'background', text(res));
  assert.match(text(res), new RegExp(`session ${id} running in the background$`));
  assert.ok(pidsWith(m).length > 0, 'the loop runs');
  res = await call({ session_id: id, input: '', yield_ms: 30000 });
  assert.match(text(res), /tick/);
  res = await call({ list: true });
  assert.match(text(res), new RegExp(`session ${id} · background · pid \\d+ · `));
  assert.equal(res.structuredContent.sessions.length, 1);
  res = await call({ session_id: id, kill: true });
  assert.match(text(res), /killed \(SIGTERM\)/);
  await noneLeft(m);
});

test('sudo is refused as an error result', async (t) => {
  const { call } = await connect(t);
  const res = await call({ command: 'sudo rm -rf /tmp/x' });
  assert.equal(res.isError, true);
  assert.match(text(res), /^refused: blocked by policy/);
  assert.match(text(res), /sudo/);
});

test('approval asked through elicitation: declined, then accepted', async (t) => {
  const asked = [];
  let action = 'decline';
  const { call, root } = await connect(t, {
    // The question for a line the policy asks about: with a sandbox in
    // force, touch runs confined without one.
    env: { TERMHELPER_SANDBOX: 'off' },
    elicit: async (req) => {
      asked.push(req.params.message);
      return action === 'accept' ? { action, content: { always: false } } : { action };
    },
  });
  let res = await call({ command: 'touch declined' });
  assert.equal(res.isError, true, text(res));
  assert.match(text(res), /user declined/);
  assert.ok(!existsSync(join(root, 'declined')), 'nothing ran');
  action = 'accept';
  res = await call({ command: 'touch accepted' });
  assert.ok(!res.isError, text(res));
  assert.ok(existsSync(join(root, 'accepted')));
  assert.equal(asked.length, 2);
  assert.match(asked[1], /touch accepted/);
});

test("a background command's end reported without polling", async (t) => {
  const { client, call, root } = await connect(t);
  const logs = [];
  let logged;
  const first = new Promise((r) => (logged = r));
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
    logs.push(n.params);
    logged();
  });
  await client.setLoggingLevel('info');
  const { command, open } = gated(root, 'exit 7');
  let res = await call({ command, background: true, yield_ms: 0 });
  const id = res.structuredContent.session_id;
  assert.ok(id, text(res));
  open();
  await Promise.race([first, new Promise((_, no) => setTimeout(() => no(new Error('no log')), watchdog).unref())]);
  const line = `[session ${id} "${command}" exited 7 after`;
  assert.equal(logs[0].level, 'info');
  assert.ok(logs[0].data.message.startsWith(line), JSON.stringify(logs[0]));
  assert.equal(logs[0].data.session.exitCode, 7);
  res = await call({ list: true });
  assert.ok(text(res).startsWith(line), text(res));
  assert.match(text(res).split('\n')[0], /after [0-9.]+m?s\]$/);
  res = await call({ list: true });
  assert.doesNotMatch(text(res), /exited 7 after/, 'reported once');
});

test('cancelling a long wait ends the wait, not the session, and gets no answer', async (t) => {
  const { call, tr } = await connect(t);
  const m = marker();
  let res = await call({ command: `sleep ${m}`, background: true, yield_ms: 0 });
  const id = res.structuredContent.session_id;
  const answers = watchAnswers(tr, 'until');
  const abort = new AbortController();
  const wait = call({ session_id: id, until: 'exit' }, { signal: abort.signal });
  setTimeout(() => abort.abort('enough'), 300);
  await assert.rejects(wait);
  res = await call({ list: true });
  assert.match(text(res), new RegExp(`session ${id} · background`), 'the session goes on');
  assert.ok(pidsWith(m).length > 0);
  res = await call({ session_id: id, kill: true });
  assert.match(text(res), /killed/);
  assert.deepEqual(answers(), [], 'a cancelled call gets no answer');
  await noneLeft(m);
});

test('an aborted foreground command gets no answer and its process is gone', async (t) => {
  const { call, tr } = await connect(t);
  const m = marker();
  const answers = watchAnswers(tr, 'command');
  const abort = new AbortController();
  const run = call({ command: `sleep ${m}` }, { signal: abort.signal });
  const end = Date.now() + watchdog;
  while (pidsWith(m).length === 0) {
    assert.ok(Date.now() < end, 'the command never started');
    await new Promise((r) => setTimeout(r, 20));
  }
  abort.abort('the person pressed Stop');
  await assert.rejects(run);
  await noneLeft(m);
  await call({ list: true }); // answered after the cancelled call's end
  assert.deepEqual(answers(), [], 'a cancelled call gets no answer');
});

// The SDK's own default: a tool call times out at 60 s. A command that
// outlives the 45 s yield answers alive before that, and the model waits
// on: past the default 60 s cap, which counts again from each call once
// the command has yielded.
test('a 65 s command with no timeout_ms answers alive, then finishes', async (t) => {
  const { client } = await connect(t);
  const started = Date.now();
  let res = await client.callTool({ name: 'terminal', arguments: { command: 'sleep 65; echo done' } });
  assert.equal(res.structuredContent.state, 'running', text(res));
  const id = res.structuredContent.session_id;
  assert.match(text(res), new RegExp(`session ${id} still running .*; ended if left without a call for 60 s$`));
  assert.equal(res.structuredContent.cap_renews, true);
  assert.ok(res.structuredContent.ends_in_ms > 0 && res.structuredContent.ends_in_ms <= 60_000);
  assert.ok(Date.now() - started < 60_000, 'answered within the timeout');
  res = await client.callTool({ name: 'terminal', arguments: { session_id: id, until: 'exit' } });
  assert.equal(res.structuredContent.exit_code, 0, text(res));
  assert.match(text(res), /done/);
});

// watchAnswers records the server's answers to the tools/call requests
// whose arguments have the key, below the SDK (which drops an answer to a
// cancelled request itself); the returned function lists them.
function watchAnswers(tr, key) {
  const send = tr.send.bind(tr);
  const onmessage = tr.onmessage;
  const ids = new Set();
  const seen = [];
  tr.send = (msg, opts) => {
    if (msg.method === 'tools/call' && key in (msg.params.arguments ?? {})) ids.add(msg.id);
    return send(msg, opts);
  };
  tr.onmessage = (msg, extra) => {
    if (ids.has(msg.id) && msg.method === undefined) seen.push(msg);
    onmessage(msg, extra);
  };
  return () => seen;
}
