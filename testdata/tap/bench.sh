#!/bin/bash
# Benchmarks of `dshgen tap` (numbers for gen/wire/tap/BENCH.md): round-trip latency per frame with
# and without the tap, and throughput of real frames through the tap with validation on.
#
#   testdata/tap/bench.sh [count]      # default count 5; run from anywhere in the repository
#
# Each configuration runs `count` times (go test -count); compare medians. The machine should
# be otherwise idle: on a shared 2-core machine other load shows up directly in the p99s.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
COUNT="${1:-5}"
echo "# $(date -u +%FT%TZ) $(go version) $(nproc) cores, load: $(cut -d' ' -f1-3 /proc/loadavg)"
go test ./cmd/dshgen -run '^$' -bench 'TapRoundTrip$' -benchtime 20000x -count "$COUNT" 2>/dev/null | grep -E '^(Benchmark|cpu|goos)'
go test ./cmd/dshgen -run '^$' -bench 'TapRoundTripPaced$' -benchtime 3000x -count "$COUNT" 2>/dev/null | grep -E '^Benchmark'
go test ./cmd/dshgen -run '^$' -bench 'TapThroughput' -benchtime 20000x -count "$COUNT" 2>/dev/null | grep -E '^Benchmark'
go test ./cmd/dshgen -run '^$' -bench 'TapThroughput/tap-validate$' -benchtime 200000x -count "$COUNT" 2>/dev/null | grep -E '^Benchmark'
