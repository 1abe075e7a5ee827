#!/usr/bin/env bash
# hopsim validate: a simulated passing run (n = 1..16) against the shipped
# reference figures, a calibration check at the 2% docs/validation.md
# states; a wrong model (no software cost in the barrier, the fitted
# parameter) fails it, and so does a tighter tolerance; bad references and
# runs without figures are refused.
#   validate.sh HOPSIM SCENARIO WORKDIR SOURCE_DIR
set -u
hopsim="$1" scenario="$2" work="$3" src="$4"
expect="$(dirname "$0")/expect.sh"
ref="$src/traces/reference/device-measurements.csv"
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
bash "$expect" --rc 0 -- "$hopsim" run "$scenario" --mode sim --set kernel.args.repeat=20 \
  '--set=kernel.args.methods=["broadcast","unicast"]' --out run || exit 1
bash "$expect" --rc 0 --has "broadcast (barrier after each target)" --has "unicast ring" \
  --has "2 rows matched: 2 within 2%" -- "$hopsim" validate run/results.json --against "$ref" --tolerance 2 || exit 1
bash "$expect" --rc 3 --has "BEYOND TOLERANCE" -- "$hopsim" validate run/results.json --against "$ref" --tolerance 0.01 || exit 1
bash "$expect" --rc 0 -- "$hopsim" run "$scenario" --mode sim --set kernel.args.repeat=20 --set machine.barrier_overhead=0 \
  '--set=kernel.args.methods=["broadcast","unicast"]' --out control || exit 1
bash "$expect" --rc 3 --has "2 rows matched: 0 within 2%" -- "$hopsim" validate control/results.json --against "$ref" --tolerance 2 || exit 1
bash "$expect" --rc 2 --has "furlongs" -- "$hopsim" validate run/results.json \
  --against "$src/tests/cli/data/reference_bad_unit.csv" || exit 1
bash "$expect" --rc 0 -- "$hopsim" run "$scenario" --mode sim --set kernel.args.repeat=2 --set kernel.args.n_max=1 --out small || exit 1
bash "$expect" --rc 2 --has "no figures to validate" -- "$hopsim" validate small/results.json --against "$ref" || exit 1
bash "$expect" --rc 2 --has "malformed JSON" -- "$hopsim" validate "$src/tests/cli/data/malformed_brace.json" --against "$ref" || exit 1
echo "validate.sh: ok"
