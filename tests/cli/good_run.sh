#!/usr/bin/env bash
# A good run in both modes: exit 0, identical data, and results.json/.csv that parse.
#   good_run.sh HOPSIM SCENARIO WORKDIR
set -u
hopsim="$1" scenario="$2" work="$3"
expect="$(dirname "$0")/expect.sh"

bash "$expect" --dir "$work" --rc 0 \
  --has "mode both" --has "data: native and simulated runs produced identical data" \
  --has "results: out/results.json, out/results.csv" --lacks "CHECK FAILED" -- \
  "$hopsim" run "$scenario" --mode both --out out \
  --set kernel.args.repeat=2 --set kernel.args.n_max=2 || exit 1
cd "$work" || exit 1

for f in out/results.json out/results.csv; do
  [[ -s "$f" ]] || { echo "good_run.sh: FAILED: $f is missing or empty"; ls -la out; exit 1; }
done
bash "$expect" --rc 0 --has "data_equal=True" --has "modes=native,sim" -- \
  python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print("data_equal=%r" % (d["data_equal"],))
print("modes=" + ",".join(m for m in ("native", "sim") if m in d))' out/results.json || exit 1
# Both modes' launches are in the CSV: 5 methods x n=1..2 each.
for mode in native sim; do
  rows=$(grep -c ",$mode," out/results.csv)
  [[ "$rows" == 10 ]] || { echo "good_run.sh: FAILED: $rows $mode rows in results.csv, expected 10"; cat out/results.csv; exit 1; }
done
echo "good_run.sh: ok"
