#!/usr/bin/env bash
# hopsim curve and sweep on their own outputs and at the edges of their
# input: a hopsim curve (one seed or several) as its own reference; a load
# that only one seed finished has no interval; eMesh link utilisation
# stays within its window; ranges of whole numbers sweep integer keys and
# a range string in a sweep file is expanded; a curve with no load, an
# unwritable output and a load without measured packets are refused
# before anything runs.
#   curve_checks.sh HOPSIM SCENARIO WORKDIR
set -u
hopsim="$1" work="$3"
here="$(cd "$(dirname "$0")" && pwd)"
expect="$here/expect.sh"
torus="$here/../../models/network/examples/torus-4x4x4.json"
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
fail() { echo "curve_checks.sh: FAILED: $*"; exit 1; }

# A curve is its own reference: same latencies, same saturation.
opts=(curve --progress off --machine unit-network --dims 4x4 --step 0.1)
bash "$expect" -- "$hopsim" "${opts[@]}" --csv self.csv || exit 1
grep -q ',1$' self.csv || fail "self.csv has no saturated row"
bash "$expect" --has "saturated at offered 1;" --has "loads compared, largest |error| 0.00%" \
  --lacks "never saturated" -- "$hopsim" "${opts[@]}" --reference self.csv --max-error 0.001 || exit 1
# Several seeds: a load where some seeds saturated counts as saturated.
seeds=(curve --progress off --machine booksim-iq --dims 4x4 --step 0.025 --seeds 4 --key phases.measure=1000)
bash "$expect" --has "SATURATED in 3 of 4" -- "$hopsim" "${seeds[@]}" --csv seeds.csv || exit 1
bash "$expect" --has "loads compared, largest |error| 0.00%" --has "(+0% from the reference's" \
  --lacks "never saturated" --lacks "beyond" -- \
  "$hopsim" "${seeds[@]}" --reference seeds.csv --max-error 0.001 || exit 1
# seeds.csv: offered,seeds,saturated_seeds,accepted,avg_latency,avg_latency_ci95,p99,net,net_ci95.
# With one seed left at a load the intervals are empty; with two or more they are numbers.
awk -F, 'NR > 1 && $5 != "" {
  left = $2 - $3
  if (left == 1 && ($6 != "" || $9 != "")) { print "row " NR ": one seed, interval " $6 " / " $9; bad = 1 }
  if (left >= 2 && ($6 == "" || $9 == "")) { print "row " NR ": " left " seeds, no interval"; bad = 1 }
  if (left == 1) one++
} END { if (!one) { print "no load with one seed left"; bad = 1 }; exit bad }' seeds.csv ||
  fail "intervals of loads that one seed finished"

# eMesh link utilisation: busy time inside the measured window only (large
# buffers reserve links far ahead of the window's end).
bash "$expect" -- "$hopsim" curve --progress off --step 0.1 --max 0.6 --set mesh_buffer=1e6 --csv util.csv || exit 1
awk -F, 'NR > 1 { n++; if ($8 > 1 + 1e-9) { print "utilisation " $8 " at load " $1; bad = 1 } }
  END { if (n != 6) { print n " rows"; bad = 1 }; exit bad }' util.csv || fail "eMesh utilisation above 1"

# Sweeps: whole-number ranges give integers (traffic.seed); a range string in a sweep file.
bash "$expect" --has "2 points, 2 rows" -- "$hopsim" sweep --progress off --scenario "$torus" \
  --sweep traffic.seed=1:2:1 --out seeds || exit 1
[ "$(cut -d, -f1 seeds/results.csv | tr '\n' ' ')" = "traffic.seed 1 2 " ] || fail "integer sweep: $(cat seeds/results.csv)"
printf '{"scenario": "%s", "sweep": {"traffic.load": "0.1:0.2:0.1"}}\n' "$torus" > range.json
bash "$expect" --has "2 points, 2 rows" -- "$hopsim" sweep --progress off range.json --out range || exit 1
[ "$(cut -d, -f1 range/results.csv | tr '\n' ' ')" = "traffic.load 0.1 0.2 " ] || fail "range string: $(cat range/results.csv)"
bash "$expect" --rc 2 --has "more than 100000 values" -- "$hopsim" sweep --scenario "$torus" \
  --sweep traffic.load=0:1:0.000001 --out big || exit 1

# Refused before anything is simulated (no "host:" line: nothing ran).
bash "$expect" --rc 2 --has "curve.max 0.3 is below curve.step 0.5" --lacks "host:" -- \
  "$hopsim" curve --progress off --step 0.5 --max 0.3 || exit 1
bash "$expect" --rc 2 --has "--csv nowhere/c.csv: cannot create a file in nowhere (no such folder)" --lacks "host:" -- \
  "$hopsim" curve --progress off --max 0.1 --csv nowhere/c.csv || exit 1
mkdir -p adir adir.png
bash "$expect" --rc 2 --has "--png adir.png: is a folder" --lacks "host:" -- \
  "$hopsim" curve --progress off --max 0.1 --png adir.png || exit 1
bash "$expect" --rc 2 --has "--png nowhere/c.png: cannot create a file in nowhere (no such folder)" --lacks "host:" -- \
  "$hopsim" curve --progress off --max 0.1 --png nowhere/c.png || exit 1
bash "$expect" --rc 2 --has "--csv adir: is a folder" --lacks "host:" -- \
  "$hopsim" curve --progress off --max 0.1 --csv adir || exit 1
bash "$expect" --rc 2 --has "load 0.001: no packet was generated in the 10 measured cycles (phases.measure) on 1 nodes" \
  -- "$hopsim" curve --progress off --rows 1 --cols 1 --step 0.001 --max 0.001 --key phases.measure=10 || exit 1
echo "curve_checks.sh: ok"
