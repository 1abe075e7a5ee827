#!/bin/sh
# Runs an eSDK-style host program natively and simulated (HOPSIM_MODE) from
# the directory of its device programs; both must pass, and both must print
# the same thing (native and simulated data equal).
#   run_both.sh DIR HOST_EXE [ARGS...]
set -eu
dir="$1"; shift
exe="$1"; shift
cd "$dir"
HOPSIM_MODE=native "$exe" "$@" > native.out 2> native.err || { echo "native run failed:"; cat native.out native.err; exit 1; }
HOPSIM_MODE=sim "$exe" "$@" > sim.out 2> sim.err || { echo "simulated run failed:"; cat sim.out sim.err; exit 1; }
cat sim.out
grep -h "^hopsim:" sim.err || true
if ! cmp -s native.out sim.out; then
  echo "native and simulated output differ:"
  diff native.out sim.out || true
  exit 1
fi
