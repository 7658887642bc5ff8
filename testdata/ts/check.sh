#!/usr/bin/env bash
# TypeScript checks for dshgen (called by .ci/run). On a fresh machine it
# installs the pinned test-only npm packages (npm ci of package-lock.json
# into the cache of ../../.ci/cache.sh, linked as node_modules here), then
#   1. (out/ts and out/0.2.1/ts are compiled by the Go tests of step 4;
#      see the comment below);
#   2. compiles the usage example, the compatibility test against the
#      published @deepseek-ai/dsh-sdk-protocol types (compat/, COMPAT.md) and
#      the node test with the same options: 0 errors;
#   3. installs the real npm runtime (../shared/real-runtime/install.sh) and
#      runs the node tests (node --test): the shared fixture corpus, the
#      transport/client/server rules, and the generated client against the
#      real runtime beside the published client; prints the summary;
#   4. runs the golden driver's TypeScript checks (gen/emit): the output for
#      every case of testdata/cases and for the shipped schema compiled with tsc
#      (they skip when TypeScript is not installed, as before npm ci on a fresh
#      machine).
# With --install it stops after the npm packages (.ci/run installs first).
# Exits non-zero when any step fails. Needs node >= 20, npm and flock on PATH; the
# fixtures are read from ../shared beside the repository (DSHGEN_SHARED overrides).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
export DSHGEN_REPO="$repo"
export DSHGEN_SHARED="${DSHGEN_SHARED:-$(cd "$repo/.." && pwd)/shared}"
cd "$here"

step() { printf '== ts: %s\n' "$*"; }

# shellcheck source=../../.ci/cache.sh
. "$repo/.ci/cache.sh"
npm_install() { # npm_install DIR: the locked packages into DIR/node_modules
  cp "$here/package.json" "$here/package-lock.json" "$here/.npmrc" "$1/" &&
    (cd "$1" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
}
step "npm ci (TypeScript $(node -p 'require("./package.json").devDependencies.typescript'), upstream protocol types), cached"
mods="$(cache_get "$(cache_root)/npm-ts-$(cache_key "npm ci; node $(node --version)" package.json package-lock.json .npmrc)" npm_install relocatable)"
# testdata/ts/node_modules is a link to the cached tree (read only: nothing
# here writes into node_modules), where every tool and test looks for it.
if [ "$(readlink node_modules 2>/dev/null)" != "$mods/node_modules" ]; then
  rm -rf node_modules
  ln -s "$mods/node_modules" node_modules
fi
echo "ts: node_modules -> $mods/node_modules"
[ "${1:-}" = --install ] && exit 0

tsc=(node "$here/node_modules/typescript/bin/tsc")
failed=()

# out/ts and out/0.2.1/ts (revision 0.2.1, schema/README.md) are compiled by
# the Go tests, not here: TestGoldenTS (gen/emit) compiles both revisions'
# generated sources (the drift check proves out/ is them, but for the
# version in the header comment) with their generated tsconfig.json's
# options, and TestPackageBuildsWithNPM (gen/emit/typescript) builds
# revision 0.0.1's package with its tsconfig.json as generated; and the
# tsc runs below compile out/ts/src in place (the usage example, the tests
# and the compat test import it).
if [ -n "${DSHGEN_CI_RUNS_GO_TESTS:-}" ]; then
  step "go test ./gen/emit -run TestGoldenTS: in the go tests stage of .ci/run (same tests, DSHGEN_REQUIRE_TSC=1)"
else
  step "go test ./gen/emit -run TestGoldenTS (every case and the shipped schema, compiled by tsc)"
  (cd "$repo" && DSHGEN_REQUIRE_TSC=1 go test -count=1 -run 'TestGoldenTS' ./gen/emit) || failed+=("go test ./gen/emit -run TestGoldenTS (tsc)")
fi

step "tsc -p testdata/ts/tsconfig.compat.json (published protocol types <-> ours, see COMPAT.md)"
for name in HarnessSdkRequestMap HarnessSdkNotificationMap; do
  if ! grep -q "^export interface $name " "$repo/out/ts/src/methods.ts"; then
    echo "ts: out/ts does not export $name: the shipped schema needs the top-level annotations" >&2
    echo '    "x-ts-request-map": "HarnessSdkRequestMap", "x-ts-notification-map": "HarnessSdkNotificationMap"' >&2
    echo "    and out/ts regenerated (go run ./cmd/dshgen generate)" >&2
  fi
done
"${tsc[@]}" -p "$here/tsconfig.compat.json" || failed+=("compat test")

step "tsc -p testdata/ts (usage example, node test)"
rm -rf "$here/dist"
if "${tsc[@]}" -p "$here/tsconfig.json"; then
  step "real runtime install (../shared/real-runtime/install.sh; DSHREAL_DIR=${DSHREAL_DIR:-/tmp/dshreal})"
  install_log="$(mktemp)"
  if real_env="$("$DSHGEN_SHARED/real-runtime/install.sh" 2>"$install_log")"; then
    eval "$real_env"
    export DSH_NODE DSH_RT_DIR
  else
    cat "$install_log" >&2
    failed+=("real runtime install")
  fi
  rm -f "$install_log"
  step "node --test (fixture corpus round trip; transport, client and server; the real runtime against the published client)"
  out="$(mktemp)"
  trap 'rm -f "$out"' EXIT
  status=0
  node --test "$here/dist/testdata/ts/test/" >"$out" 2>&1 || status=$?
  if [ "$status" -ne 0 ]; then
    cat "$out"
    failed+=("node test")
  fi
  grep -E '^# (frames|tests|pass|fail|cancelled|skipped|todo|duration_ms)' "$out" || true
  pass="$(sed -n 's/^# pass //p' "$out")"
  fail="$(sed -n 's/^# fail //p' "$out")"
  echo "typescript: ${pass:-0} passed, ${fail:-0} failed"
else
  failed+=("tsc usage/test")
fi

if [ "${#failed[@]}" -gt 0 ]; then
  echo "ts: FAILED: ${failed[*]}" >&2
  exit 1
fi
echo "ts: all checks passed"
