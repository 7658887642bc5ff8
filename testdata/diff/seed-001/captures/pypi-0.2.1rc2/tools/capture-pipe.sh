#!/bin/bash
set -e
ip link set lo up
RT=$(ls /tmp/dshpy/lib/python3*/site-packages/deepseek_harness_runtime/runtime/deepseek-harness-sdk-runtime-linux-x64)
coproc LLM { exec python3 /tmp/pycap/fake_anthropic.py /tmp/pycap/llm-requests.jsonl; }
read -t 10 -r PORT <&"${LLM[0]}"
timeout 120 python3 /tmp/pycap/drive.py "$RT" /tmp/pycap/text-turn "$PORT" || echo "driver failed $?" >&2
kill -TERM "$LLM_PID"; wait "$LLM_PID" || true
