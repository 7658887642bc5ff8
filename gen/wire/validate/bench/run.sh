#!/usr/bin/env bash
# Validator benchmark: `dshgen validate` beside ajv (npm, compiled from the
# same schema, same per-method routing) and the decode-only floors, on one
# corpus built from the real server-to-client frames (fresh session ids per
# repetition, so every frame is valid and fully checked).
#
#   gen/wire/validate/bench/run.sh [MB]      # corpus size, default 50
#
# Needs go, node and npm (ajv is installed into a temporary directory).
set -euo pipefail
root=$(cd "$(dirname "$0")/../../../.." && pwd)
mb=${1:-50}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$root"

DSHGEN_BENCH_MB=$mb DSHGEN_BENCH_OUT=$work/corpus.jsonl go test -count=1 -run TestWriteBenchCorpus ./gen/wire/validate/ >/dev/null
go build -o "$work/dshgen" ./cmd/dshgen
cp gen/wire/validate/bench/package.json gen/wire/validate/bench/ajv-bench.mjs "$work/"
(cd "$work" && npm install --no-audit --no-fund --silent >/dev/null)

bytes=$(stat -c %s "$work/corpus.jsonl")
frames=$(wc -l <"$work/corpus.jsonl")
echo "corpus: $bytes bytes, $frames frames"
printf '%-44s %10s %12s %10s\n' "what" "MB/s" "frames/s" "peak RSS"

times=()
for _ in 1 2 3; do
  t0=$(date +%s.%N)
  /usr/bin/time -f '%M' -o "$work/rss" "$work/dshgen" validate --schema schema/0.0.1/dsh-sdk-protocol.schema.json "$work/corpus.jsonl" >"$work/out" || {
    echo "dshgen validate found errors in the corpus:"; head "$work/out"; exit 1; }
  t1=$(date +%s.%N)
  times+=("$(echo "$t1 - $t0" | bc)")
done
med=$(printf '%s\n' "${times[@]}" | sort -n | sed -n 2p)
rss=$(cat "$work/rss")
awk -v b="$bytes" -v f="$frames" -v s="$med" -v r="$rss" 'BEGIN { printf "%-44s %10.1f %12.0f %8.0f MB\n", "dshgen validate (CLI, whole process)", b/1e6/s, f/s, r/1024 }'

(cd "$work" && node ajv-bench.mjs "$root/schema/0.0.1/dsh-sdk-protocol.schema.json" corpus.jsonl 3) |
  node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{for(const l of s.trim().split("\n")){const r=JSON.parse(l);if(r.invalid)console.error("ajv: "+r.invalid+" invalid frames");console.log(`${("node: "+r.what).padEnd(44)} ${r.mbps.toFixed(1).padStart(10)} ${Math.round(r.framesps).toString().padStart(12)}`)}})'

DSHGEN_BENCH_MB=$mb go test -run XXX -bench 'BenchmarkValidate$|BenchmarkDecodeOnly|BenchmarkJSONValid' -benchtime 3x ./gen/wire/validate/ |
  awk '/^Benchmark/ { printf "%-44s %10s %12s\n", "go: " $1, $5, $7 }'
