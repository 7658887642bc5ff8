#!/bin/bash
RT=$(ls /tmp/dshpy/lib/python3*/site-packages/deepseek_harness_runtime/runtime/deepseek-harness-sdk-runtime-linux-x64)
D=/tmp/pycap/sdk-run; mkdir -p $D
tee -a $D/client-to-server.jsonl | "$RT" "$@" | tee -a $D/server-to-client.jsonl
