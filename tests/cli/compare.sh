#!/usr/bin/env bash
# hopsim compare: both modes on the identical workload, the side-by-side
# table, and compare.json / compare.csv / compare.png that agree with it.
#   compare.sh HOPSIM SCENARIO WORKDIR
set -u
hopsim="$1" scenario="$2" work="$3"
expect="$(dirname "$0")/expect.sh"

bash "$expect" --dir "$work" --rc 0 \
  --has "hopsim compare | kernel passing" --has "native us/op" --has "sim us/op" \
  --has "data: identical in both modes (10 timings)" --lacks "DIFFER" -- \
  "$hopsim" compare "$scenario" --out out --set kernel.args.repeat=2 --set kernel.args.n_max=2 || exit 1
cd "$work" || exit 1
for f in out/compare.json out/compare.csv out/compare.png out/results.json; do
  [[ -s "$f" ]] || { echo "compare.sh: FAILED: $f is missing or empty"; ls -la out; exit 1; }
done
# A real PNG (signature bytes), not a renamed text file.
[[ "$(head -c 8 out/compare.png | od -An -tx1 | tr -d ' \n')" == 89504e470d0a1a0a ]] ||
  { echo "compare.sh: FAILED: compare.png is not a PNG"; exit 1; }
# The JSON rows pair every launch of both modes; per-op times are positive,
# the simulated per-op time equals results.json's launch seconds / repeat,
# and the bytes moved are the same in both modes (same workload).
bash "$expect" --rc 0 --has "rows=10" --has "consistent=True" -- python3 -c 'import json, sys
c = json.load(open("out/compare.json")); r = json.load(open("out/results.json"))
print("rows=%d" % len(c["rows"]))
ok = c["data_identical"] and c["operations_per_launch"] == 2
sim = {(l["method"], l["n"]): l for l in r["sim"]["launches"]}
nat = {(l["method"], l["n"]): l for l in r["native"]["launches"]}
for row in c["rows"]:
    k = (row["labels"]["method"], row["labels"]["n"])
    ok &= row["native_seconds"] > 0 and row["sim_seconds"] > 0 and row["data"] == "equal"
    ok &= abs(row["sim_seconds"] - sim[k]["seconds"] / 2) <= 1e-12 + 1e-9 * sim[k]["seconds"]
    ok &= sim[k]["bytes"] > 0 and sim[k]["bytes"] == nat[k]["bytes"]
print("consistent=%r" % ok)' || exit 1
echo "compare.sh: ok"
