#!/usr/bin/env bash
# hopsim sweep --seeds: a traffic point's row holds each column's mean over
# the seeds and its 95% interval (two seeds: the mean of the two single-seed
# sweeps' values, half-width t(1) x |a - b| / 2 with t(1) = 12.706), and
# `saturated` counts the seeds; a sweep of kind run refuses it.
#   sweep_seeds.sh HOPSIM SCENARIO WORKDIR
set -u
hopsim="$1" scenario="$2" work="$3"
expect="$(dirname "$0")/expect.sh"
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
base=(sweep --sweep traffic.load=0.1,0.3 --progress off)
bash "$expect" --rc 0 -- "$hopsim" "${base[@]}" --sweep traffic.seed=7 --out a || exit 1
bash "$expect" --rc 0 -- "$hopsim" "${base[@]}" --sweep traffic.seed=8 --out b || exit 1
bash "$expect" --rc 0 --has "avg_latency_ci95" -- "$hopsim" "${base[@]}" --sweep traffic.seed=7 --seeds 2 --out ab || exit 1
col() { head -1 "$1" | tr , '\n' | grep -nx "$2" | cut -d: -f1; }
a=$(col a/results.csv avg_latency) m=$(col ab/results.csv avg_latency) h=$(col ab/results.csv avg_latency_ci95)
s=$(col ab/results.csv saturated)
paste -d, <(tail -n +2 a/results.csv | cut -d, -f"$a") <(tail -n +2 b/results.csv | cut -d, -f"$a") \
  <(tail -n +2 ab/results.csv | cut -d, -f"$m,$h,$s") |
  awk -F, '{
    m = ($1 + $2) / 2; d = $1 - $2; if (d < 0) d = -d; h = 12.706 * d / 2
    if ((m - $3) ^ 2 > 1e-18 || (h - $4) ^ 2 > 1e-12 * (1 + h * h) || $5 != 0) { print "row " NR ": " $0 ", expected " m " +- " h; bad = 1 }
    n++
  } END { if (n != 2) { print n " rows, expected 2"; bad = 1 }; exit bad }' ||
  { echo "sweep_seeds.sh: FAILED: the seeds' statistics"; exit 1; }
bash "$expect" --rc 2 --has "--seeds: only for traffic sweeps" -- "$hopsim" sweep --kind run --scenario "$scenario" \
  --sweep kernel.args.repeat=1,2 --seeds 2 --out run || exit 1
bash "$expect" --rc 2 --has "--seeds 0: must be in 1..1000" -- "$hopsim" "${base[@]}" --seeds 0 --out z || exit 1
echo "sweep_seeds.sh: ok"
