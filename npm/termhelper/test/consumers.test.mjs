// The client as the projects that use it compile and load it: a yo code
// style CommonJS extension (module node16, no "type": "module"), an old
// CommonJS project (module commonjs, node10 resolution), an ES module
// project (nodenext), and TypeScript 7 (tsgo) with no settings beyond the
// module kind, so no @types/node in its types. Each consumer is compiled
// against this package's declarations (skipLibCheck off), then run against
// the built binary.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const run = promisify(execFile);
const pkg = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const watchdog = 120_000; // a guard against a hang, never a timing assertion

// What a consumer writes: every call shape it needs, a signal included.
const source = (imports) => `${imports}

async function main(): Promise<void> {
  const th: Termhelper = await Termhelper.start({ root: ".", stderr: "ignore" });
  const ac = new AbortController();
  const r: Result = await th.run({ command: "echo consumer-ok" }, { signal: ac.signal });
  if (!isFinished(r) || !r.output.includes("consumer-ok")) throw new Error(JSON.stringify(r));
  const code: number = ErrorCode.NoSuchSession;
  try {
    await th.read({ sessionId: "none" });
  } catch (err) {
    if (!(err instanceof ResponseError) || err.code !== code) throw err;
  }
  th.on("exited", (e) => e.exitCode);
  await th.close();
  console.log("consumer: protocol " + th.info.protocolVersion);
}
main().catch((err) => {
  console.error(err);
  throw err;
});
`;
const named = 'import { Termhelper, ErrorCode, ResponseError, isFinished, type Result } from "termhelper";';

const consumers = {
  "yo code (node16, CommonJS)": {
    pkg: { name: "ext", private: true },
    tsconfig: { module: "node16", target: "ES2022", lib: ["ES2022", "DOM"], strict: true },
    main: "out/index.js",
  },
  "commonjs with node10 resolution": {
    pkg: { name: "old", private: true },
    tsconfig: { module: "commonjs", moduleResolution: "node10", target: "ES2020", lib: ["ES2020", "DOM"], strict: true, esModuleInterop: true },
    main: "out/index.js",
  },
  "ES module (nodenext)": {
    pkg: { name: "esm", private: true, type: "module" },
    tsconfig: { module: "nodenext", target: "ES2022", lib: ["ES2022", "DOM"], strict: true },
    main: "out/index.js",
  },
};

/** A consumer project in a fresh folder, with this package installed by link. */
function project(t, c, types) {
  const dir = mkdtempSync(join(tmpdir(), "termhelper-consumer-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(join(dir, "src"));
  mkdirSync(join(dir, "node_modules", "@types"), { recursive: true });
  symlinkSync(pkg, join(dir, "node_modules", "termhelper"), "dir");
  if (types) symlinkSync(join(pkg, "node_modules", "@types", "node"), join(dir, "node_modules", "@types", "node"), "dir");
  writeFileSync(join(dir, "package.json"), JSON.stringify(c.pkg));
  const options = { ...c.tsconfig, outDir: "out", rootDir: "src", skipLibCheck: false };
  writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions: options, include: ["src"] }));
  writeFileSync(join(dir, "src", "index.ts"), source(named));
  return dir;
}

async function compile(dir, compiler) {
  try {
    await run(join(pkg, "node_modules", ".bin", compiler), ["-p", dir], { timeout: watchdog });
  } catch (err) {
    assert.fail(`${compiler} failed in ${dir}:\n${err.stdout}${err.stderr}`);
  }
}

async function runs(dir, main) {
  const { stdout } = await run(process.execPath, [main], { cwd: dir, timeout: watchdog, env: { ...process.env, SHELL: "" } });
  assert.match(stdout, /consumer: protocol 1/);
}

for (const [name, c] of Object.entries(consumers)) {
  test(`compiles and runs: ${name}`, async (t) => {
    const dir = project(t, c, true);
    await compile(dir, "tsc");
    if (process.env.TERMHELPER_BIN) await runs(dir, c.main);
  });
}

// TypeScript 7 leaves types out unless listed: the declarations must not
// need Node's (no NodeJS namespace, no node: import).
for (const name of ["yo code (node16, CommonJS)", "ES module (nodenext)"]) {
  test(`compiles under TypeScript 7 without extra settings: ${name}`, async (t) => {
    const c = consumers[name];
    const dir = project(t, { ...c, tsconfig: { module: c.tsconfig.module, strict: true } }, true);
    await compile(dir, "tsgo");
    if (process.env.TERMHELPER_BIN) await runs(dir, c.main);
  });
}
