#!/bin/sh
# The packaging test: what make dist built, installed as a host installs it.
# The linux-x64 (or linux-arm64) tarball and the main tarball go into an
# empty folder with npm install; then the client is imported and used, the
# termhelper bin passes an exit code through, the declarations are there,
# and every release binary is under 10 MB.
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
	case "$bin" in *.tgz) continue ;; esac
	size=$(wc -c < "$bin" | tr -d ' ')
	[ "$size" -lt 10485760 ] || fail "$bin is $size bytes, not under 10 MB"
done
(cd "$dist" && sha256sum -c --quiet SHA256SUMS) || fail "SHA256SUMS does not match"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
printf '{"name":"host","private":true,"type":"module"}\n' > package.json
# The other platforms' packages are not published: npm skips them as
# optional dependencies it cannot fetch.
npm install --no-audit --no-fund --loglevel=error \
	"$dist/npm/termhelper-$platform-$version.tgz" "$dist/npm/termhelper-$version.tgz" >npm.log 2>&1 ||
	{ cat npm.log >&2; fail "npm install failed"; }

for f in index.d.ts types.d.ts binary.d.ts; do
	[ -f "node_modules/termhelper/lib/$f" ] || fail "no declarations: lib/$f"
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
if (!findBinary().includes("node_modules/termhelper-")) throw new Error(`binary from ${findBinary()}`);
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
echo "test-package: ok ($platform, $version)"
