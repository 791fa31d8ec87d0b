// The client's types against the protocol's JSON Schemas (docs/schema):
// declarations are generated from each schema file, and tsc checks that
// each is identical to the client's type for the same message, both ways
// (a field missing, extra, optional on one side only or of another type
// fails). The schemas themselves are checked against the helper's real
// answers by e2e/schema_test.go.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { compileFromFile } from "json-schema-to-typescript";

const run = promisify(execFile);
const pkg = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const schemaDir = resolve(pkg, "../../docs/schema");

// Each schema file's root type, and the client's type for the same message.
const pairs = {
  "initialize.params": ["InitializeParams", "InitializeParams"],
  "initialize.result": ["InitializeResult", "InitializeResult"],
  "exec-run.params": ["RunParams", "RunParams"],
  "exec-run.result": ["RunResult", "Result"],
  "session-write.params": ["WriteParams", "WriteParams"],
  "session-write.result": ["WriteResult", "Result"],
  "session-read.params": ["ReadParams", "ReadParams"],
  "session-read.result": ["ReadResult", "Result"],
  "session-kill.params": ["KillParams", "KillParams"],
  "session-kill.result": ["KillResult", "Finished"],
  "session-list.result": ["ListResult", "ListResult"],
  "session-resize.params": ["ResizeParams", "ResizeParams"],
  "session-screen.params": ["ScreenParams", "ScreenParams"],
  "session-screen.result": ["ScreenResult", "ScreenResult"],
  "policy-check.params": ["PolicyCheckParams", "PolicyCheckParams"],
  "policy-check.result": ["PolicyCheckResult", "PolicyCheckResult"],
  "trash-list.result": ["TrashListResult", "TrashListResult"],
  "trash-restore.params": ["TrashRestoreParams", "TrashRestoreParams"],
  "trash-restore.result": ["TrashRestoreResult", "TrashEntry"],
  "approval-request.params": ["ApprovalRequest", "ApprovalRequest"],
  "approval-request.result": ["ApprovalResult", "ApprovalResult"],
  "session-exited.params": ["ExitedEvent", "ExitedEvent"],
  "session-waiting.params": ["WaitingEvent", "WaitingEvent"],
  "session-output.params": ["OutputEvent", "OutputEvent"],
};
// Shapes the client has no type of its own for.
const noClientType = new Set(["common", "error", "cancelRequest.params"]);

test("every schema file has its client type", () => {
  for (const f of readdirSync(schemaDir)) {
    const name = f.replace(/\.json$/, "");
    assert.ok(name in pairs || noClientType.has(name), `docs/schema/${f} has no client type to check against`);
  }
});

test("the client's types are the schemas' types", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "termhelper-schema-types-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const lines = [
    `import type * as C from ${JSON.stringify(join(pkg, "lib", "index.js"))};`,
    "type Equals<A, B> = (<T>() => T extends A ? 1 : 2) extends (<T>() => T extends B ? 1 : 2) ? true : false;",
    "type Same<T extends true> = T;",
  ];
  for (const [file, [schemaType, clientType]] of Object.entries(pairs)) {
    const ts = await compileFromFile(join(schemaDir, `${file}.json`), { bannerComment: "", cwd: schemaDir, format: false });
    const module = file.replaceAll(/[.-]/g, "_");
    writeFileSync(join(dir, `${module}.ts`), ts);
    lines.push(`import type { ${schemaType} as ${module} } from "./${module}.js";`);
    lines.push(`export type ${module}_is_${clientType} = Same<Equals<${module}, C.${clientType}>>; // docs/schema/${file}.json`);
  }
  writeFileSync(join(dir, "check.ts"), lines.join("\n") + "\n");
  writeFileSync(join(dir, "package.json"), JSON.stringify({ type: "module" }));
  const options = { module: "nodenext", target: "ES2022", strict: true, noEmit: true, skipLibCheck: false, types: [] };
  writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions: options, include: ["*.ts"] }));
  try {
    await run(join(pkg, "node_modules", ".bin", "tsc"), ["-p", dir], { timeout: 120_000 });
  } catch (err) {
    assert.fail(`the client's types and docs/schema differ:\n${err.stdout}${err.stderr}\n(generated declarations in ${dir})`);
  }
});
