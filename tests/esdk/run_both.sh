#!/bin/sh
# Runs an eSDK-style host program natively and simulated (HOPSIM_MODE) from
# the directory of its device programs; both must pass, and both must print
# the same thing (native and simulated data equal). Prints the simulated
# run's output for the test's PASS_REGULAR_EXPRESSION; any failure ends with
# a line "hopsim-test FAILED: ...", which the tests' FAIL_REGULAR_EXPRESSION
# catches (a PASS_REGULAR_EXPRESSION alone ignores the exit status).
#   run_both.sh DIR HOST_EXE [ARGS...]
set -eu
dir="$1"; shift
exe="$1"; shift
cd "$dir"
# Outputs in a folder of this run's own: tests run in parallel in DIR.
out=$(mktemp -d "${TMPDIR:-/tmp}/hopsim-esdk-test.XXXXXX")
trap 'rc=$?; rm -rf "$out"; [ "$rc" = 0 ] || echo "hopsim-test FAILED: run_both.sh exit status $rc"' EXIT
HOPSIM_MODE=native "$exe" "$@" > "$out/native.out" 2> "$out/native.err" ||
  { echo "native run failed:"; cat "$out/native.out" "$out/native.err"; exit 1; }
HOPSIM_MODE=sim "$exe" "$@" > "$out/sim.out" 2> "$out/sim.err" ||
  { echo "simulated run failed:"; cat "$out/sim.out" "$out/sim.err"; exit 1; }
cat "$out/sim.out"
grep -h "^hopsim:" "$out/sim.err" || true
if ! cmp -s "$out/native.out" "$out/sim.out"; then
  echo "native and simulated output differ:"
  diff "$out/native.out" "$out/sim.out" || true
  exit 1
fi
