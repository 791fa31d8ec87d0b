#!/usr/bin/env bash
# Installs the agent hosts e2e/hosts_test.go drives (package-lock.json pins
# them) into a cache folder outside the repository, keyed by the lock file,
# once; prints the folder that holds node_modules/.bin. The cache is
# $TERMHELPER_HOSTS_CACHE, else /var/cache/termhelper/hosts when writable,
# else ~/.cache/termhelper/hosts.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cache=${TERMHELPER_HOSTS_CACHE:-/var/cache/termhelper/hosts}
if ! mkdir -p "$cache" 2>/dev/null || [ ! -w "$cache" ]; then
	cache=${XDG_CACHE_HOME:-$HOME/.cache}/termhelper/hosts
	mkdir -p "$cache"
fi
key=$(cat "$here/package.json" "$here/package-lock.json" | sha256sum | cut -c1-16)
dir=$cache/$key
if [ ! -x "$dir/node_modules/.bin/claude" ] || [ ! -x "$dir/node_modules/.bin/codex" ] || [ ! -x "$dir/node_modules/.bin/gemini" ]; then
	tmp=$(mktemp -d "$cache/.install.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	cp "$here/package.json" "$here/package-lock.json" "$tmp/"
	(cd "$tmp" && npm ci --no-audit --no-fund --loglevel=error >&2)
	rm -rf "$dir"
	mv "$tmp" "$dir"
	trap - EXIT
fi
echo "$dir"
