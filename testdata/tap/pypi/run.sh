#!/bin/bash
# Drive the published Python SDK (PyPI deepseek-harness-sdk + deepseek-harness-runtime-bin)
# through `dshgen tap`: DeepSeekHarness(...).run("Say hello.") with the PyPI runtime behind
# the tap, a fake Anthropic-Messages model on 127.0.0.1.
#
#   python3 -m venv /tmp/dshpy && /tmp/dshpy/bin/pip install deepseek-harness-sdk deepseek-harness-runtime-bin
#   unshare -rn testdata/tap/pypi/run.sh [out-dir]     # loopback-only network namespace
#
# Writes out-dir/capture.log (the tap's capture) and out-dir/report.txt (its findings) and
# prints the SDK's result as JSON. Env: DSHPY (venv, default /tmp/dshpy), DSHGEN (a dshgen
# binary; default: built into out-dir).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
OUT="$(mkdir -p "${1:-/tmp/dshgen-tap-pypi}" && cd "${1:-/tmp/dshgen-tap-pypi}" && pwd)"
DSHPY="${DSHPY:-/tmp/dshpy}"
if [ -z "${DSHGEN:-}" ]; then
  DSHGEN="$OUT/dshgen"
  (cd "$HERE/../../.." && go build -o "$DSHGEN" ./cmd/dshgen)
fi
RT=$(ls "$DSHPY"/lib/python3*/site-packages/deepseek_harness_runtime/runtime/deepseek-harness-sdk-runtime-linux-x64)
cat > "$OUT/tap-rt.sh" <<WRAP
#!/bin/bash
exec "$DSHGEN" tap --capture "$OUT/capture.log" --report "$OUT/report.txt" -- "$RT" "\$@"
WRAP
chmod +x "$OUT/tap-rt.sh"
ip link set lo up 2>/dev/null || true
coproc LLM { exec python3 "$HERE/fake_anthropic.py"; }
read -t 10 -r PORT <&"${LLM[0]}"
status=0
timeout 120 "$DSHPY/bin/python" "$HERE/sdk_run.py" "$PORT" "$OUT" || status=$?
kill -TERM "$LLM_PID"; wait "$LLM_PID" || true
exit "$status"
