#!/usr/bin/env bash
# Self-test of the TypeScript round-trip driver (driver.mjs, driver protocol
# 1: see ../../README.md): feeds it three frames against the committed
# bindings (out/ts, or $DSHGEN_TS_OUT) and checks
#   1. the handshake line comes first;
#   2. an initialize request with an unknown member comes back unchanged;
#   3. its response (the header gives the request's method) comes back
#      unchanged;
#   4. a session.status whose status is not one of the enum's values is
#      "3<TAB>!error /params/status: ...";
#   5. the exit status is 0 and there is one line per frame;
# then feeds the same frames to a copy of the bindings whose InitializeParams
# lost its optional member maxTokens, and checks frame 1 comes back without
# it (a binding that drops a member is caught).
# Needs node >= 20 and `npm ci --prefix testdata/ts` (TypeScript, or
# $DSHGEN_TYPESCRIPT). Run from anywhere; exits non-zero on the first failed
# check.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../../../../.." && pwd)"
bindings="${DSHGEN_TS_OUT:-$repo/out/ts}"
export DSHGEN_TYPESCRIPT="${DSHGEN_TYPESCRIPT:-$repo/testdata/ts/node_modules/typescript}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

req='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"cwd":"/w","provider":"deepseek-official","model":"deepseek-v4-flash","maxTokens":8,"x-extra":{"kept":[1,"é"]}}}'
res='{"jsonrpc":"2.0","id":1,"result":{"serverInfo":{"name":"deepseek-harness-sdk-runtime","version":"0.0.1"}}}'
bad='{"jsonrpc":"2.0","method":"session.status","params":{"sessionId":"s","status":"sleeping"}}'
printf '{"seq":1}\t%s\n{"seq":2,"method":"initialize"}\t%s\n{"seq":3}\t%s\n' "$req" "$res" "$bad" >"$tmp/in.jsonl"
hs='dshgen-conformance-driver 1'
tab=$'\t'

fail() { echo "ts driver selftest: FAIL: $*" >&2; exit 1; }

run() { # run BINDINGS: stdout to $tmp/out, stderr to $tmp/err, exit status in $status
  status=0
  DSHGEN_TS_OUT="$1" node "$here/driver.mjs" <"$tmp/in.jsonl" >"$tmp/out" 2>"$tmp/err" || status=$?
}

start=$(date +%s%N)
run "$bindings"
[ "$status" -eq 0 ] || fail "exit status $status, want 0; stderr: $(head -c 2000 "$tmp/err")"
[ "$(wc -l <"$tmp/out")" -eq 4 ] || fail "$(wc -l <"$tmp/out") output lines for the handshake and 3 frames; stderr: $(head -c 2000 "$tmp/err")"
[ "$(sed -n 1p "$tmp/out")" = "$hs" ] || fail "line 1: got $(sed -n 1p "$tmp/out"), want the handshake"
[ "$(sed -n 2p "$tmp/out")" = "1$tab$req" ] || fail "frame 1: got $(sed -n 2p "$tmp/out")"
[ "$(sed -n 3p "$tmp/out")" = "2$tab$res" ] || fail "frame 2: got $(sed -n 3p "$tmp/out")"
case "$(sed -n 4p "$tmp/out")" in
  "3$tab!error /params/status: "*sleeping*) ;;
  *) fail "frame 3: got $(sed -n 4p "$tmp/out")" ;;
esac
echo "ts driver selftest: 3 frames: 2 round-tripped, 1 rejected ($(sed -n 4p "$tmp/out" | cut -c1-100)) in $(( ($(date +%s%N) - start) / 1000000 )) ms"

# A copy of the bindings that lost an optional member.
mkdir -p "$tmp/broken"
cp -R "$bindings/." "$tmp/broken/"
node -e '
  const fs = require("node:fs");
  const p = process.argv[1];
  const s = fs.readFileSync(p, "utf8");
  const i = s.indexOf("export interface InitializeParams ");
  const j = s.indexOf("  maxTokens?: number;\n", i);
  if (i < 0 || j < 0 || j > s.indexOf("\n}\n", i)) { console.error("no InitializeParams.maxTokens in " + p); process.exit(1); }
  fs.writeFileSync(p, s.slice(0, j) + s.slice(j + "  maxTokens?: number;\n".length));
' "$tmp/broken/src/types.ts"
start=$(date +%s%N)
run "$tmp/broken"
[ "$(wc -l <"$tmp/out")" -eq 4 ] || fail "broken bindings: $(wc -l <"$tmp/out") output lines; stderr: $(head -c 2000 "$tmp/err")"
got="$(sed -n 2p "$tmp/out")"
want="1$tab${req/,\"maxTokens\":8/}"
[ "$got" = "$want" ] || fail "broken bindings: frame 1: got $got, want $want"
echo "ts driver selftest: bindings without InitializeParams.maxTokens: frame 1 comes back without it (caught) in $(( ($(date +%s%N) - start) / 1000000 )) ms"
echo "ts driver selftest: ok"
