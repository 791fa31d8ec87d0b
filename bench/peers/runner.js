'use strict';
// The node side of the bench's peers section (bench/peers.go): it runs
// `/bin/sh -c 'echo hi'` in this process, as a host using node-pty
// directly does, and times it. It answers "ready NODE_VERSION
// NODE_PTY_VERSION" once node-pty is loaded, then, for each line read on
// stdin, runs the command one way and answers one line: the nanoseconds
// from the spawn call to the exit with the whole output received, or
// "error: WHY".
//
//   pty    node-pty's pty.spawn, to its exit event and the output "hi"
//   spawn  child_process.spawn with a pipe and no terminal, to its close
//          event (the exit and the end of its output) and the output "hi"

const pty = require('node-pty');
const childProcess = require('child_process');
const readline = require('readline');

const argv = ['-c', 'echo hi'];
const watchdog = 10000; // ms: guards against a hang, not a target

// settle calls done once, with the time since t0 or an error.
function settle(t0, done) {
  let settled = false;
  const timer = setTimeout(() => finish(new Error('no exit with the output within the watchdog')), watchdog);
  function finish(err) {
    if (settled) return;
    settled = true;
    clearTimeout(timer);
    done(err, process.hrtime.bigint() - t0);
  }
  return finish;
}

function viaPty(done) {
  const t0 = process.hrtime.bigint();
  const finish = settle(t0, done);
  const term = pty.spawn('/bin/sh', argv, { name: 'xterm-256color', cols: 160, rows: 48, cwd: process.cwd(), env: process.env });
  let out = '';
  let exited = false;
  const check = () => { if (exited && out.includes('hi')) finish(null); };
  term.onData((d) => { out += d; check(); });
  term.onExit(() => { exited = true; check(); });
}

function viaSpawn(done) {
  const t0 = process.hrtime.bigint();
  const finish = settle(t0, done);
  const child = childProcess.spawn('/bin/sh', argv, { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (d) => { out += d; });
  child.on('error', finish);
  child.on('close', () => finish(out.includes('hi') ? null : new Error(`output ${JSON.stringify(out)}`)));
}

const ways = { pty: viaPty, spawn: viaSpawn };

function answer(err, ns) {
  process.stdout.write(err ? `error: ${err.message}\n` : `${ns}\n`);
}

const lines = readline.createInterface({ input: process.stdin });
lines.on('line', (line) => {
  const way = ways[line.trim()];
  if (!way) {
    answer(new Error(`unknown way ${JSON.stringify(line)}`));
    return;
  }
  way(answer);
});
lines.on('close', () => process.exit(0));
process.stdout.write(`ready ${process.version} ${require('node-pty/package.json').version}\n`);
