#!/usr/bin/env bash
# Start-up cost of `dshgen tap`: `dshgen tap [--schema S] -- true` against
# `dshgen tap --no-validate -- true` (same binary, no schema loaded),
# interleaved repetitions, medians of wall time and of CPU time
# (user+sys); "added" is the difference. Every *.schema.json under schema/
# is measured as a --schema file, and the default (embedded) schema too.
#
#   gen/wire/tap/startbench.sh [REPS] [DSHGEN_BINARY...]
#
# With several binaries (e.g. a build of main and one of a branch) they are
# measured in the same interleaved run. Without, it builds ./cmd/dshgen.
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
reps=${1:-15}
shift || true
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bins=("$@")
if [ ${#bins[@]} -eq 0 ]; then
  (cd "$root" && go build -o "$work/dshgen" ./cmd/dshgen)
  bins=("$work/dshgen")
fi
cat >"$work/run.py" <<'PY'
# Runs argv once; prints wall and CPU (user+sys of the child) in seconds.
import os, subprocess, sys, time
t0 = time.perf_counter()
p = subprocess.Popen(sys.argv[1:], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
_, status, ru = os.wait4(p.pid, 0)
wall = time.perf_counter() - t0
if status != 0:
    sys.exit("%s: exit status %d" % (" ".join(sys.argv[1:]), status))
print("%.6f %.6f" % (wall, ru.ru_utime + ru.ru_stime))
PY
cd "$root"
configs=("--no-validate" "")
while IFS= read -r f; do configs+=("--schema $f"); done < <(find schema -name '*.schema.json' | sort)

for ((r = 0; r < reps; r++)); do
  for bi in "${!bins[@]}"; do
    for ci in "${!configs[@]}"; do
      # shellcheck disable=SC2086
      echo "$bi $ci $(python3 "$work/run.py" "${bins[$bi]}" tap ${configs[$ci]} -- true)" >>"$work/all"
    done
  done
done

printf '%-8s %-52s %9s %9s %11s %11s\n' binary config "wall ms" "cpu ms" "added wall" "added cpu"
for bi in "${!bins[@]}"; do
  for ci in "${!configs[@]}"; do
    med() { awk -v b="$bi" -v c="$1" -v k="$2" '$1==b && $2==c {print $k}' "$work/all" | sort -n | awk '{a[NR]=$1} END {printf "%.1f", a[int((NR+1)/2)]*1000}'; }
    w=$(med "$ci" 3) c=$(med "$ci" 4) w0=$(med 0 3) c0=$(med 0 4)
    name=${configs[$ci]:-"(default schema)"}
    printf '%-8s %-52s %9.1f %9.1f %11.1f %11.1f\n' "$bi" "$name" "$w" "$c" "$(echo "$w - $w0" | bc)" "$(echo "$c - $c0" | bc)"
  done
done
