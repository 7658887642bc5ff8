#!/bin/bash
set -e
ip link set lo up
coproc LLM { exec python3 /tmp/pycap/fake_anthropic.py; }
read -t 10 -r PORT <&"${LLM[0]}"
timeout 120 /tmp/dshpy/bin/python /tmp/pycap/sdk_run.py "$PORT" || echo "sdk failed $?" >&2
kill -TERM "$LLM_PID"; wait "$LLM_PID" || true
