#!/bin/sh
# termhelper's rm: instead of deleting, it moves each operand into the
# project's trash ($TERMHELPER_TRASH_DIR), where termhelper's trash/list and
# trash/restore find it again. It is put first on PATH for the commands
# termhelper runs, so scripts, xargs and find -exec meet it too; /bin/rm and
# "command -p rm" name the real rm and bypass it.

if [ -z "${TERMHELPER_TRASH_DIR:-}" ]; then
	# Not run by termhelper: be the real rm.
	for real in /bin/rm /usr/bin/rm; do
		[ -x "$real" ] && exec "$real" "$@"
	done
	echo "rm: the real rm was not found" >&2
	exit 1
fi

umask 077
force=0 recursive=0 emptydir=0 verbose=0

# First pass: options. Like GNU rm, options may follow operands.
ops_only=0
for arg do
	[ "$ops_only" = 1 ] && continue
	case $arg in
	--) ops_only=1 ;;
	--force) force=1 ;;
	--recursive) recursive=1 ;;
	--dir) emptydir=1 ;;
	--verbose) verbose=1 ;;
	--interactive | --interactive=* | --one-file-system | --preserve-root | \
		--preserve-root=* | --no-preserve-root) ;;
	--*)
		printf "rm: unrecognized option '%s'\n" "$arg" >&2
		exit 1
		;;
	-?*)
		opts=${arg#-}
		while [ -n "$opts" ]; do
			c=${opts%"${opts#?}"}
			opts=${opts#?}
			case $c in
			f) force=1 ;;
			r | R) recursive=1 ;;
			d) emptydir=1 ;;
			v) verbose=1 ;;
			i | I) ;; # nothing is lost, so there is nothing to confirm
			*)
				printf "rm: invalid option -- '%s'\n" "$c" >&2
				exit 1
				;;
			esac
		done
		;;
	esac
done

# abspath prints the absolute, symlink-free path of $1's folder plus its name.
abspath() {
	_d=$(dirname -- "$1") && _b=$(basename -- "$1") || return 1
	_d=$(CDPATH='' cd -P -- "$_d" 2>/dev/null && pwd -P) || return 1
	case $_d in
	/) printf '/%s' "$_b" ;;
	*) printf '%s/%s' "$_d" "$_b" ;;
	esac
}

# new_entry creates a fresh folder in the trash and prints it; mkdir is
# atomic, so concurrent rm calls never share one.
new_entry() {
	mkdir -p -- "$TERMHELPER_TRASH_DIR" || return 1
	_stamp=$(date -u +%Y%m%dT%H%M%SZ)
	_i=0
	while [ "$_i" -lt 1000 ]; do
		_e="$TERMHELPER_TRASH_DIR/$_stamp-$$-$_i"
		if mkdir -- "$_e" 2>/dev/null; then
			printf '%s' "$_e"
			return 0
		fi
		_i=$((_i + 1))
	done
	return 1
}

remove_one() {
	p=$1
	if [ ! -e "$p" ] && [ ! -h "$p" ]; then
		[ "$force" = 1 ] && return 0
		printf "rm: cannot remove '%s': No such file or directory\n" "$p" >&2
		return 1
	fi
	case $(basename -- "$p") in
	. | ..)
		printf "rm: refusing to remove '.' or '..' directory: skipping '%s'\n" "$p" >&2
		return 1
		;;
	esac
	if [ -d "$p" ] && [ ! -h "$p" ] && [ "$recursive" = 0 ]; then
		if [ "$emptydir" = 0 ] || [ -n "$(ls -A -- "$p")" ]; then
			if [ "$emptydir" = 1 ]; then
				printf "rm: cannot remove '%s': Directory not empty\n" "$p" >&2
			else
				printf "rm: cannot remove '%s': Is a directory\n" "$p" >&2
			fi
			return 1
		fi
	fi
	abs=$(abspath "$p") || {
		printf "rm: cannot remove '%s': cannot resolve its path\n" "$p" >&2
		return 1
	}
	if [ "$abs" = / ] || [ "$abs" = // ]; then
		printf "rm: it is dangerous to operate recursively on '/'\n" >&2
		return 1
	fi
	entry=$(new_entry) || {
		printf "rm: cannot remove '%s': cannot create a trash entry in %s\n" "$p" "$TERMHELPER_TRASH_DIR" >&2
		return 1
	}
	printf '%s' "$abs" >"$entry/path"
	date -u +%Y-%m-%dT%H:%M:%SZ >"$entry/time"
	printf '%s' "${TERMHELPER_COMMAND:-rm}" >"$entry/command"
	if err=$(mv -- "$p" "$entry/item" 2>&1); then
		[ "$verbose" = 1 ] && printf "removed '%s'\n" "$p"
		return 0
	fi
	printf "rm: cannot remove '%s': %s\n" "$p" "${err##*: }" >&2
	command -p rm -f -- "$entry/path" "$entry/time" "$entry/command"
	rmdir -- "$entry" 2>/dev/null
	return 1
}

# Second pass: operands.
status=0 count=0 ops_only=0
for arg do
	if [ "$ops_only" = 0 ]; then
		case $arg in
		--)
			ops_only=1
			continue
			;;
		-?*) continue ;;
		esac
	fi
	count=$((count + 1))
	remove_one "$arg" || status=1
done
if [ "$count" = 0 ] && [ "$force" = 0 ]; then
	echo "rm: missing operand" >&2
	exit 1
fi
exit "$status"
