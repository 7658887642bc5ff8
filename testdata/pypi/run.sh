#!/usr/bin/env bash
# Runs the published Python SDK (PyPI deepseek-harness-sdk 0.2.1rc2) against its
# runtime (deepseek-harness-runtime-bin 0.2.1rc2) in every scenario of
# scenarios.py, directly and with the runtime behind `dshgen tap`, with the
# scripted Anthropic Messages model of fake_anthropic.py on 127.0.0.1.
#
#   testdata/pypi/run.sh [OUT]          # default OUT: a new mktemp -d directory
#
# 1. installs the pinned packages (install.sh; cached, see there) and builds
#    dshgen into OUT unless DSHGEN names a binary;
# 2. re-runs itself in a new network namespace whose only interface is
#    loopback (`unshare -rn` + `ip link set lo up`) when the host allows it;
#    otherwise (or with DSHPY_NETNS=off) it stays in the host's network and
#    relies on configuration: the model URL is http://127.0.0.1:PORT, the
#    runtime's environment is rebuilt from PATH/TMPDIR only (no proxies) and
#    its telemetry is off. Which one was used is printed and written to
#    OUT/network.txt;
# 3. starts the fake model (exits by itself after 15 minutes at most; stopped
#    by PID at the end) and runs scenarios.py (each scenario bounded by
#    DSHPY_SCENARIO_TIMEOUT seconds, default 90; the whole run by 600 s).
#
# Env: DSHGEN (a dshgen binary), DSHGEN_PYPI_SCHEMA (schema the tap validates
# with; default the shipped one), SCENARIOS (comma-separated subset), MODES
# (default direct,tap), JOBS (parallel scenarios), PYTHON, DSHGEN_CACHE (see
# install.sh). Results: OUT/<mode>/<scenario>/outcome.json and captures, the
# model's request log OUT/model-requests.jsonl, OUT/summary.json. Exit status
# 0 when every scenario ran to its end.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

if [ "${1:-}" != "--inner" ]; then
	OUT="${1:-$(mktemp -d "${TMPDIR:-/tmp}/dshgen-pypi.XXXXXX")}"
	mkdir -p "$OUT"
	OUT="$(cd "$OUT" && pwd)"
	eval "$("$HERE/install.sh")"
	export DSHPY_PYTHON DSHPY_RUNTIME DSHPY_CACHE
	if [ -z "${DSHGEN:-}" ]; then
		DSHGEN="$OUT/dshgen"
		(cd "$HERE/../.." && go build -o "$DSHGEN" ./cmd/dshgen)
	fi
	export DSHGEN
	why=""
	if [ "${DSHPY_NETNS:-auto}" = off ]; then
		why="DSHPY_NETNS=off"
	elif ! command -v unshare >/dev/null 2>&1 || ! command -v ip >/dev/null 2>&1; then
		why="unshare or ip not found"
	elif ! err=$(unshare -rn ip link set lo up 2>&1); then
		why="unshare -rn failed: ${err:-no message}"
	fi
	if [ -z "$why" ]; then
		exec unshare -rn "$HERE/run.sh" --inner "$OUT" namespace
	fi
	exec "$HERE/run.sh" --inner "$OUT" config "$why"
fi

OUT="$2"
NET="$3"
if [ "$NET" = namespace ]; then
	ip link set lo up
	others=$(ip -o link show | awk -F': ' '$2 != "lo" {print $2}')
	[ -z "$others" ] || { echo "run.sh: the namespace has interfaces besides lo: $others" >&2; exit 1; }
	NET="namespace: loopback-only network namespace (unshare -rn; only lo, up)"
else
	NET="configuration: host network (no namespace: $4); the model at 127.0.0.1, the runtime's environment rebuilt without proxies, its telemetry off"
fi
echo "network isolation: $NET" | tee "$OUT/network.txt" >&2

coproc LLM { exec "$DSHPY_PYTHON" "$HERE/fake_anthropic.py" --log "$OUT/model-requests.jsonl" --max-lifetime 900; }
LLM_PID_SAVED=$LLM_PID
trap 'kill -TERM "$LLM_PID_SAVED" 2>/dev/null || true' EXIT
read -t 10 -r PORT <&"${LLM[0]}" || { echo "run.sh: the fake model did not start" >&2; exit 1; }

args=(--port "$PORT" --out "$OUT" --runtime "$DSHPY_RUNTIME" --modes "${MODES:-direct,tap}" --dshgen "$DSHGEN"
	--timeout "${DSHPY_SCENARIO_TIMEOUT:-90}" --native-cache "$DSHPY_CACHE/pkg-native")
[ -z "${DSHGEN_PYPI_SCHEMA:-}" ] || args+=(--schema "$DSHGEN_PYPI_SCHEMA")
[ -z "${SCENARIOS:-}" ] || args+=(--only "$SCENARIOS")
[ -z "${JOBS:-}" ] || args+=(--jobs "$JOBS")
status=0
timeout 600 "$DSHPY_PYTHON" "$HERE/scenarios.py" "${args[@]}" || status=$?
echo "results in $OUT" >&2
exit "$status"
