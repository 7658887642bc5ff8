#!/usr/bin/env bash
# Installs the published Python SDK and its runtime (requirements.txt: PyPI
# deepseek-harness-sdk and deepseek-harness-runtime-bin 0.2.1rc2 plus
# pydantic, every file pinned by sha256) into a cache directory keyed by the
# sha256 of requirements.txt:
#
#   ${DSHGEN_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/dshgen}/pypi-<hash>/
#     wheels/          the downloaded wheels (kept: a new venv never downloads again)
#     <cache-tag>/     a venv for one interpreter (e.g. cpython-311), complete when
#                      its file .complete (the runtime's path) exists
#
# Idempotent (a complete install is reused as is, in well under a second) and safe against
# concurrent runs (flock on pypi-<hash>.lock; the second run waits, then
# finds the install complete). A half-made venv (an interrupted run) is
# removed and made again. On success prints, on stdout and nothing else:
#
#   DSHPY_PYTHON=<venv python>
#   DSHPY_RUNTIME=<the runtime executable in the venv>
#   DSHPY_CACHE=<the cache directory>
#
# so that `eval "$(testdata/pypi/install.sh)"` sets them. Env: PYTHON (the
# interpreter to make the venv from, default python3, 3.10+). Exit 1 with a
# message on stderr naming what failed: no python3/venv/pip, PyPI unreachable
# (the index URL pip uses is probed), a hash mismatch, a broken install.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REQ="$HERE/requirements.txt"
PY="${PYTHON:-python3}"

die() { printf 'testdata/pypi/install.sh: %s\n' "$*" >&2; exit 1; }

command -v "$PY" >/dev/null 2>&1 || die "$PY not found (need CPython 3.10+ with venv and pip)"
"$PY" -c 'import sys; sys.exit(sys.version_info < (3, 10))' || die "$PY is $("$PY" -V 2>&1); need 3.10+"
"$PY" -c 'import venv, ensurepip' 2>/dev/null || die "$PY has no venv/ensurepip module (Debian: apt-get install python3-venv)"
command -v flock >/dev/null 2>&1 || die "flock not found (util-linux)"

hash=$(sha256sum "$REQ" | cut -c1-16)
base="${DSHGEN_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/dshgen}"
cache="$base/pypi-$hash"
tag=$("$PY" -c 'import sys; print(sys.implementation.cache_tag)')
venv="$cache/$tag"
mkdir -p "$cache"

exec 9>"$cache.lock"
flock -w 900 9 || die "timed out after 900 s waiting for $cache.lock (another install still running?)"


if [ ! -f "$venv/.complete" ]; then
	index="${PIP_INDEX_URL:-$("$PY" -m pip config get global.index-url 2>/dev/null || echo https://pypi.org/simple)}"
	log=$(mktemp)
	trap 'rm -f "$log"' EXIT
	mkdir -p "$cache/wheels"
	# --only-binary: the runtime is wheels only; the hashes pin these exact files.
	if ! "$PY" -m pip download --disable-pip-version-check --no-input -q --no-deps --only-binary=:all: \
		--require-hashes -r "$REQ" -d "$cache/wheels" >"$log" 2>&1; then
		if ! "$PY" - "$index" <<'PROBE' 2>/dev/null; then
import sys, urllib.request
urllib.request.urlopen(sys.argv[1].rstrip("/") + "/deepseek-harness-sdk/", timeout=15).read(1)
PROBE
			die "cannot reach the package index $index (PyPI) to download the pinned wheels into $cache/wheels; check the network or PIP_INDEX_URL. pip said: $(tail -3 "$log")"
		fi
		die "pip download failed (a hash mismatch means requirements.txt or the index changed): $(tail -20 "$log")"
	fi
	rm -rf "$venv"
	"$PY" -m venv "$venv" || die "python3 -m venv $venv failed"
	"$venv/bin/python" -m pip install --disable-pip-version-check --no-input -q --no-index --no-deps \
		--find-links "$cache/wheels" --require-hashes -r "$REQ" >"$log" 2>&1 ||
		die "pip install from $cache/wheels failed: $(tail -20 "$log")"
	"$venv/bin/python" -c 'import deepseek_harness, pydantic' || die "the installed SDK does not import"
	rt=$("$venv/bin/python" -c 'from deepseek_harness_runtime import bundled_runtime_path; print(bundled_runtime_path())') || die "the installed runtime package does not resolve its executable"
	[ -x "$rt" ] || die "$rt is not executable"
	printf '%s\n' "$rt" >"$venv/.complete"
fi
rt=$(cat "$venv/.complete")
[ -x "$rt" ] || die "$rt (recorded in $venv/.complete) is gone; remove $venv to reinstall"

printf 'DSHPY_PYTHON=%s\nDSHPY_RUNTIME=%s\nDSHPY_CACHE=%s\n' "$venv/bin/python" "$rt" "$cache"
