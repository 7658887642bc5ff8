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

# Snapshots: a tool's own cache that is worth keeping between runs (mypy's,
# keyed like the install it belongs to) but that the tool does not let two
# processes share, kept as one tar file per slot,
#
#   <cache root>/<name>-<key>/<slot>.tar
#
# A run extracts the slot's tar (when there is one) into a directory of its
# own (snapshot_restore), runs the tool with that as its cache, and, only
# when the tool passed, replaces the tar by one of that directory
# (snapshot_save): written beside it and renamed over it, so a reader opens
# either the old tar or the new one, whole; with two runs at once the last
# rename wins and both tars are complete. A snapshot only makes the tool
# faster: an empty, missing or unreadable one is a cold cache.

# snapshot_restore TAR DIR: extracts TAR into the empty directory DIR (DIR
# stays empty when TAR is missing or unreadable).
snapshot_restore() {
	[ -f "$1" ] || return 0
	tar -C "$2" -xf "$1" 2>/dev/null || { rm -rf "$2" && mkdir -p "$2"; }
}

# snapshot_save DIR TAR: replaces TAR by a tar of DIR's contents.
snapshot_save() {
	local tmp
	mkdir -p "$(dirname "$2")" && tmp=$(mktemp "$2.XXXXXX") || return 1
	if tar -C "$1" -cf "$tmp" . && mv -f "$tmp" "$2"; then
		return 0
	fi
	rm -f "$tmp"
	return 1
}
