#!/bin/sh
# The packaging test: what make dist built, installed as a host installs it.
# The @termhelper/linux-x64 (or linux-arm64) tarball and the main tarball go
# into an empty folder with npm install; then the client is imported and
# used from ESM and CommonJS, the termhelper bin passes an exit code
# through, `npx -y termhelper --mcp` serves MCP (offline), the declarations
# are there, every package states its licence, every release binary is
# under 15 MB, and an install without the platform package fails with the
# fix in its message.
# Usage: sh npm/test-package.sh DIST
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
dist=$(cd "${1:-dist}" && pwd)
version=$(cat "$repo/VERSION")
case "$(uname -s)-$(uname -m)" in
Linux-x86_64) platform=linux-x64 ;;
Linux-aarch64) platform=linux-arm64 ;;
*) echo "test-package: runs on Linux x64 or arm64 only"; exit 0 ;;
esac

fail() { echo "test-package: $*" >&2; exit 1; }

for bin in "$dist"/termhelper-*-*; do
	case "$bin" in *.tgz | *.mcpb) continue ;; esac
	size=$(wc -c < "$bin" | tr -d ' ')
	[ "$size" -lt 15000000 ] || fail "$bin is $size bytes, not under 15 MB"
done
(cd "$dist" && sha256sum -c --quiet SHA256SUMS) || fail "SHA256SUMS does not match"

tmp=$(mktemp -d)
bare=$(mktemp -d)
trap 'rm -rf "$tmp" "$bare"' EXIT
cd "$tmp"
printf '{"name":"host","private":true,"type":"module"}\n' > package.json
# The other platforms' packages are not published: npm skips them as
# optional dependencies it cannot fetch.
npm install --no-audit --no-fund --prefer-offline --loglevel=error \
	"$dist/npm/termhelper-$platform-$version.tgz" "$dist/npm/termhelper-$version.tgz" >npm.log 2>&1 ||
	{ cat npm.log >&2; fail "npm install failed"; }

for f in index.d.ts esm.d.mts types.d.ts binary.d.ts; do
	[ -f "node_modules/termhelper/lib/$f" ] || fail "no declarations: lib/$f"
done
for p in node_modules/termhelper node_modules/@termhelper/$platform; do
	[ -f "$p/LICENSE" ] || fail "$p has no LICENSE"
	node -e '
		const p = require(process.argv[1] + "/package.json");
		for (const k of ["license", "repository", "engines"]) if (!p[k]) throw new Error(p.name + " has no " + k);
		if (p.name.startsWith("@termhelper/") && !(p.os && p.cpu)) throw new Error(p.name + " has no os or cpu");
	' "$PWD/$p" || fail "$p/package.json lacks a field"
done

# The client must find the platform package's binary on its own.
unset TERMHELPER_BIN
export SHELL= TERMHELPER_CONFIG_DIR="$tmp/.cfg"

got=$(npx --no-install termhelper --version)
case "$got" in "termhelper $version ("*) ;; *) fail "--version printed: $got" ;; esac

set +e
out=$(npx --no-install termhelper run -- 'echo hi; exit 3')
code=$?
set -e
[ "$code" = 3 ] || fail "npx termhelper run exited $code, want 3; printed: $out"
case "$out" in *hi*) ;; *) fail "npx termhelper run printed: $out" ;; esac

cat > smoke.mjs <<'JS'
import { Termhelper, isFinished, findBinary } from "termhelper";
const want = process.argv[2];
if (!findBinary().includes("node_modules/@termhelper/")) throw new Error(`binary from ${findBinary()}`);
const timer = setTimeout(() => { console.error("smoke: no end within 60s"); process.exit(1); }, 60_000);
const th = await Termhelper.start({ root: process.cwd() });
if (th.info.serverInfo.version !== want) throw new Error(`serverInfo.version ${th.info.serverInfo.version}`);
const r = await th.run({ command: "echo from-package" });
if (!isFinished(r) || r.exitCode !== 0 || !r.output.includes("from-package")) throw new Error(JSON.stringify(r));
const ended = new Map();
let wake = () => {};
th.on("exited", (e) => { ended.set(e.sessionId, e); wake(); });
const bg = await th.run({ command: "sleep 0.3; exit 5", background: true, yieldMs: 50 });
if (isFinished(bg)) throw new Error(`background finished at once: ${JSON.stringify(bg)}`);
while (!ended.has(bg.sessionId)) await new Promise((resolve) => { wake = resolve; });
const e = ended.get(bg.sessionId);
if (e.exitCode !== 5) throw new Error(JSON.stringify(e));
await th.close();
clearTimeout(timer);
console.log("smoke: ok");
JS
node smoke.mjs "$version" || fail "the client smoke script failed"
node -e 'const { Termhelper, findBinary } = require("termhelper"); if (typeof Termhelper.start !== "function") throw new Error("no Termhelper from require"); findBinary();' ||
	fail "require(\"termhelper\") failed"

# What an MCP host's config runs: npx -y termhelper --mcp, offline.
node "$repo/npm/mcp-smoke.mjs" "$(pwd -P)" npx -y --offline termhelper --mcp --root "$(pwd -P)" || fail "npx -y termhelper --mcp failed"

# Without the platform package the install itself fails, and says what to do.
cd "$bare"
printf '{"name":"bare","private":true}\n' > package.json
if npm install --no-audit --no-fund --prefer-offline --omit=optional --loglevel=error "$dist/npm/termhelper-$version.tgz" >npm.log 2>&1; then
	cat npm.log >&2; fail "npm install without the platform package succeeded"
fi
grep -q "is not installed. npm installs it as an optional dependency of termhelper: install again without --omit=optional" npm.log ||
	{ cat npm.log >&2; fail "the failed install does not say what to do"; }
echo "test-package: ok ($platform, $version)"
