#!/bin/bash
# Capture the PyPI runtime's frames for each scenario (see ../README.md).
#   unshare -rn schema/0.2.1/evidence/tools/capture.sh OUT_DIR [SCENARIO...]
# Env: PY (a python with deepseek-harness-sdk==0.2.1rc2 + deepseek-harness-runtime-bin==0.2.1rc2),
#      DSHGEN (dshgen binary). Runs in a loopback-only network namespace (unshare -rn).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
OUT="$(mkdir -p "$1" && cd "$1" && pwd)"; shift
SCEN=("$@"); [ ${#SCEN[@]} -gt 0 ] || SCEN=(text-turn bash-tool fs-tools parallel wait working-directory resume reasoning-effort model-errors subagent image errors)
export RT="${RT:-$("$PY" -c 'import deepseek_harness_runtime,os;print(os.path.join(os.path.dirname(deepseek_harness_runtime.__file__),"runtime","deepseek-harness-sdk-runtime-linux-x64"))')}"
export DSHGEN WORK="${WORK:-/tmp/dsh021}"
rm -rf "$WORK"; mkdir -p "$WORK"
ip link set lo up 2>/dev/null || true
coproc LLM { exec python3 "$HERE/fake_anthropic.py" "$OUT/llm-requests.jsonl"; }
read -t 10 -r PORT <&"${LLM[0]}"
for s in "${SCEN[@]}"; do
  echo "== $s" >&2
  timeout 300 "$PY" "$HERE/drive.py" "$s" "$OUT" "$PORT" > "$OUT/$s.stdout" 2> "$OUT/$s.stderr" || echo "scenario $s exited $?" >&2
done
kill -TERM "$LLM_PID"; wait "$LLM_PID" || true
