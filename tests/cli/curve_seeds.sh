#!/usr/bin/env bash
# hopsim curve --seeds: each load's mean and 95% interval are those of the
# single-seed curves (two seeds: the mean of the two latencies, half-width
# t(1) x |a - b| / 2 with t(1) = 12.706); the saturation point is reported
# over the seeds; a bad count is refused.
#   curve_seeds.sh HOPSIM SCENARIO WORKDIR
set -u
hopsim="$1" work="$3"
expect="$(dirname "$0")/expect.sh"
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
opts=(curve --step 0.1 --max 0.4)
bash "$expect" --rc 0 -- "$hopsim" "${opts[@]}" --key traffic.seed=7 --csv a.csv || exit 1
bash "$expect" --rc 0 -- "$hopsim" "${opts[@]}" --key traffic.seed=8 --csv b.csv || exit 1
bash "$expect" --rc 0 --has "2 seeds from 7" --has "+-95%" -- "$hopsim" "${opts[@]}" --key traffic.seed=7 --seeds 2 \
  --csv ab.csv || exit 1
# a.csv/b.csv: offered,accepted,avg_latency,...; ab.csv: offered,seeds,saturated_seeds,accepted,avg_latency,avg_latency_ci95,...
paste -d, <(tail -n +2 a.csv | cut -d, -f3) <(tail -n +2 b.csv | cut -d, -f3) <(tail -n +2 ab.csv | cut -d, -f5,6) |
  awk -F, '{
    m = ($1 + $2) / 2; d = $1 - $2; if (d < 0) d = -d; h = 12.706 * d / 2
    if ((m - $3) ^ 2 > 1e-18 || (h - $4) ^ 2 > 1e-12 * (1 + h * h)) { print "row " NR ": mean " $3 " +- " $4 ", expected " m " +- " h; bad = 1 }
    n++
  } END { if (n != 4) { print n " rows, expected 4"; bad = 1 }; exit bad }' ||
  { echo "curve_seeds.sh: FAILED: the seeds' statistics"; exit 1; }
bash "$expect" --rc 0 --has "saturation: offered 0.500 +-0.000 (95%, 3 seeds; from 0.5 to 0.5)" \
  --has "SATURATED in 3 of 3" -- "$hopsim" curve --step 0.1 --seeds 3 || exit 1
bash "$expect" --rc 2 --has "--seeds 0: must be in 1..1000" -- "$hopsim" curve --seeds 0 || exit 1
echo "curve_seeds.sh: ok"
