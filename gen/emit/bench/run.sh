#!/usr/bin/env bash
# Generation benchmark: `dshgen generate` (all languages) on the shipped
# schema copied 1, 20 and 50 times (scale.py), wall time, CPU time and peak
# RSS (/usr/bin/time -v), and each one's ratio to the 1x run scaled
# linearly (1.00 = exactly linear). The schema caps are lifted with
# DSHGEN_SCHEMA_LIMIT_SCALE (gen/schemadoc README).
#
#   gen/emit/bench/run.sh [FACTOR...]      # default: 1 20 50
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$root"
factors=("$@")
[ ${#factors[@]} -gt 0 ] || factors=(1 20 50)
go build -o "$work/dshgen" ./cmd/dshgen
export DSHGEN_SCHEMA_LIMIT_SCALE=1024
printf '%-7s %10s %8s %8s %9s %11s %11s\n' factor "schema MB" "wall s" "CPU s" "RSS MB" "CPU/linear" "RSS/linear"
# The default revision's schema (schema/schema.go's Default).
schema=schema/$(sed -n 's/^const Default = "\(.*\)"$/\1/p' schema/schema.go)/dsh-sdk-protocol.schema.json
for f in "${factors[@]}"; do
  python3 gen/emit/bench/scale.py "$schema" "$f" "$work/s$f.json"
  /usr/bin/time -v -o "$work/t$f" "$work/dshgen" generate --schema "$work/s$f.json" --out "$work/o$f" >/dev/null
  mb=$(stat -c %s "$work/s$f.json")
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,a,":"); s=0; for(i=1;i<=n;i++) s=s*60+a[i]; print s}' "$work/t$f")
  cpu=$(awk -F': ' '/User time/ {u=$2} /System time/ {s=$2} END {print u+s}' "$work/t$f")
  rss=$(awk -F': ' '/Maximum resident/ {print $2/1024}' "$work/t$f")
  if [ -z "${cpu1:-}" ]; then f1=$f cpu1=$cpu rss1=$rss; fi
  awk -v f="$f" -v b="$mb" -v w="$wall" -v c="$cpu" -v r="$rss" -v f1="$f1" -v c1="$cpu1" -v r1="$rss1" \
    'BEGIN { printf "%-7s %10.1f %8.2f %8.2f %9.0f %11.2f %11.2f\n", f "x", b/1e6, w, c, r, c/(c1*f/f1), r/(r1*f/f1) }'
  rm -rf "$work/o$f"
done
