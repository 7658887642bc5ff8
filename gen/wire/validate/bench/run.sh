#!/usr/bin/env bash
# Validator benchmark: `dshgen validate` (the CLI, whole process, default
# flags) beside ajv 8 (npm, compiled from the same schema, the same
# per-method routing, run in process: its start and compile are not
# counted), on one corpus built from the real server-to-client frames
# (fresh session ids per repetition, so every frame is valid and fully
# checked). The two alternate, REPS times; medians of wall time and of
# the CLI's CPU time (user+sys). Then both check a mutated copy of the
# corpus and must reject the same frames.
#
#   gen/wire/validate/bench/run.sh [MB] [REPS]     # defaults 50 and 5
#
# Needs go, node, npm and python3 (ajv is installed into a temporary
# directory).
set -euo pipefail
root=$(cd "$(dirname "$0")/../../../.." && pwd)
mb=${1:-50}
reps=${2:-5}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$root"
# The default revision's schema (schema/schema.go's Default).
schema=schema/$(sed -n 's/^const Default = "\(.*\)"$/\1/p' schema/schema.go)/dsh-sdk-protocol.schema.json

DSHGEN_BENCH_MB=$mb DSHGEN_BENCH_OUT=$work/corpus.jsonl go test -count=1 -run TestWriteBenchCorpus ./gen/wire/validate/ >/dev/null
go build -o "$work/dshgen" ./cmd/dshgen
cp gen/wire/validate/bench/package.json gen/wire/validate/bench/ajv-bench.mjs "$work/"
(cd "$work" && npm install --no-audit --no-fund --silent >/dev/null)

cat >"$work/run.py" <<'PY'
# Runs argv once; prints wall and CPU (user+sys of the child) in seconds.
import os, subprocess, sys, time
t0 = time.perf_counter()
p = subprocess.Popen(sys.argv[1:], stdout=open(os.environ["OUT"], "wb"))
_, status, ru = os.wait4(p.pid, 0)
wall = time.perf_counter() - t0
print("%.6f %.6f %d %d" % (wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss // 1024, os.waitstatus_to_exitcode(status)))
PY

bytes=$(stat -c %s "$work/corpus.jsonl")
frames=$(wc -l <"$work/corpus.jsonl")
echo "corpus: $bytes bytes, $frames frames; $reps alternating repetitions, $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"

: >"$work/d" && : >"$work/a"
for ((r = 0; r < reps; r++)); do
  read -r w c rss code < <(OUT=$work/out python3 "$work/run.py" "$work/dshgen" validate --schema "$schema" "$work/corpus.jsonl")
  if [ "$code" != 0 ]; then echo "dshgen validate found errors in the corpus:"; head "$work/out"; exit 1; fi
  echo "$w $c $rss" >>"$work/d"
  (cd "$work" && node ajv-bench.mjs "$root/$schema" corpus.jsonl 1) >>"$work/a"
done

med() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
dw=$(cut -d' ' -f1 "$work/d" | med)
dc=$(cut -d' ' -f2 "$work/d" | med)
drss=$(cut -d' ' -f3 "$work/d" | med)
printf '%-46s %9s %9s %10s\n' "what" "MB/s" "frames/s" "peak RSS"
awk -v b="$bytes" -v f="$frames" -v s="$dw" -v r="$drss" 'BEGIN { printf "%-46s %9.1f %9.0f %7.0f MB\n", "dshgen validate (CLI, whole process, wall)", b/1e6/s, f/s, r }'
awk -v b="$bytes" -v s="$dc" 'BEGIN { printf "%-46s %9.1f\n", "dshgen validate (CLI, per CPU-second)", b/1e6/s }'
node -e '
const lines = require("fs").readFileSync(process.argv[1], "utf8").trim().split("\n").map(JSON.parse);
const by = {};
for (const r of lines) (by[r.what] ||= []).push(r.ms);
const bytes = Number(process.argv[2]), frames = Number(process.argv[3]), dw = Number(process.argv[4]);
let best = 0;
for (const [what, ms] of Object.entries(by)) {
  ms.sort((a, b) => a - b);
  const m = ms[Math.floor((ms.length - 1) / 2)] / 1000;
  const mbps = bytes / 1e6 / m;
  if (what.startsWith("ajv") && mbps > best) best = mbps;
  console.log(`${("node: " + what + " (in process)").padEnd(46)} ${mbps.toFixed(1).padStart(9)} ${Math.round(frames / m).toString().padStart(9)}`);
}
console.log(`ratio dshgen (whole process) / ajv best style: ${(bytes / 1e6 / dw / best).toFixed(2)}x`);
' "$work/a" "$bytes" "$frames" "$dw"

# The mutated corpus: every 97th frame broken in one of several ways the
# schema forbids; both must reject exactly those frames.
python3 - "$work/corpus.jsonl" "$work/mutated.jsonl" <<'PY'
import json, sys
src, dst = sys.argv[1:]
with open(src) as f, open(dst, "w") as out:
    for n, line in enumerate(f, 1):
        if n % 97 == 0:
            fr = json.loads(line)
            p = fr.get("params")
            k = (n // 97) % 4
            if isinstance(p, dict):
                if k == 0:
                    p.pop("sessionId", None)
                elif k == 1 and isinstance(p.get("event"), dict):
                    p["event"]["seq"] = "seven"
                elif k == 2 and isinstance(p.get("event"), dict):
                    p["event"]["data"] = 5
                else:
                    p["sessionId"] = 17
                line = json.dumps(fr, separators=(",", ":")) + "\n"
        out.write(line)
PY
"$work/dshgen" validate --format json --schema "$schema" "$work/mutated.jsonl" >"$work/mut.json" || true
(cd "$work" && node ajv-bench.mjs "$root/$schema" mutated.jsonl 1 lines) >"$work/mut-ajv.json"
python3 - "$work/mut.json" "$work/mut-ajv.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
ours = sorted({f["line"] for s in d["streams"] for f in s["findings"] if f["rule"] in ("params.schema", "error.schema") and f["severity"] == "error"})
theirs = sorted(json.load(open(sys.argv[2]))["invalidLines"])
if ours != theirs:
    print("mutated corpus: dshgen rejects %d frames, ajv %d; only dshgen: %s; only ajv: %s" % (len(ours), len(theirs), sorted(set(ours) - set(theirs))[:10], sorted(set(theirs) - set(ours))[:10]))
    sys.exit(1)
print("mutated corpus: both reject the same %d frames" % len(ours))
PY
