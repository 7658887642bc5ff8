# Sourced by the scripts that install test tools (testdata/ts/check.sh,
# testdata/python/check.sh): one install per set of pins, shared by every
# clone on the machine, under
#
#   ${DSHGEN_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/dshgen}/<name>-<key>/
#
# where <key> is the sha256 of the pins (cache_key). An install is made under
# a lock (flock on <dir>.lock: a second clone installing the same pins waits,
# then reuses it) and is complete when <dir>/.complete exists, which is
# written last; a directory without it (an interrupted install) is removed
# and made again, never used. A complete install is never changed.

cache_root() { printf '%s\n' "${DSHGEN_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/dshgen}"; }

# cache_key TEXT [FILE...]: 16 hex digits of the sha256 of TEXT and the files.
cache_key() {
	local text=$1
	shift
	{ printf '%s\n' "$text"; cat "$@"; } | sha256sum | cut -c1-16
}

# cache_get DIR INSTALL [relocatable]: makes DIR a complete install and
# prints DIR. INSTALL TARGET (a function or command) installs into the empty
# directory TARGET; its output goes to stderr. With "relocatable" (nothing in
# the install names its own path, as an npm node_modules tree) TARGET is a
# temporary directory beside DIR, renamed to DIR when INSTALL succeeds;
# otherwise (a Python venv, whose scripts name their interpreter by absolute
# path) TARGET is DIR itself. Either way DIR is only used once .complete is
# in it. Exit status 1 when INSTALL fails or the lock is not free in 15 min.
cache_get() {
	local dir=$1 install=$2 mode=${3:-}
	mkdir -p "$(dirname "$dir")" || return 1
	(
		exec 8>"$dir.lock"
		flock -w 900 8 || {
			echo "timed out after 900 s waiting for $dir.lock (another install still running?)" >&2
			exit 1
		}
		[ -f "$dir/.complete" ] && exit 0
		rm -rf "$dir" "$dir".tmp-*
		if [ "$mode" = relocatable ]; then
			tmp=$(mktemp -d "$dir.tmp-XXXXXX") || exit 1
			if "$install" "$tmp" >&2 && : >"$tmp/.complete" && mv -T "$tmp" "$dir"; then
				exit 0
			fi
			rm -rf "$tmp"
			exit 1
		fi
		mkdir -p "$dir" || exit 1
		if "$install" "$dir" >&2 && : >"$dir/.complete"; then
			exit 0
		fi
		rm -rf "$dir"
		exit 1
	) || return 1
	printf '%s\n' "$dir"
}
