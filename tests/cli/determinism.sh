#!/usr/bin/env bash
# Two simulations of the same scenario give the same launches, cycle for cycle.
#   determinism.sh HOPSIM SCENARIO WORKDIR
set -u
hopsim="$1" scenario="$2" work="$3"
expect="$(dirname "$0")/expect.sh"
args=(--mode sim --set kernel.args.repeat=5 --set kernel.args.n_max=3)

rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
for run in a b; do
  bash "$expect" --rc 0 -- "$hopsim" run "$scenario" "${args[@]}" --out "$run" || exit 1
done
grep ',sim,' a/results.csv >a.sim || true
grep ',sim,' b/results.csv >b.sim || true
rows=$(wc -l <a.sim)
# 5 methods x n=1..3.
[[ "$rows" == 15 ]] || { echo "determinism.sh: FAILED: $rows sim rows in a/results.csv, expected 15"; cat a/results.csv; exit 1; }
if ! diff a.sim b.sim; then
  echo "determinism.sh: FAILED: the two simulations differ (diff above)"
  exit 1
fi
echo "determinism.sh: ok, $rows identical sim rows"
