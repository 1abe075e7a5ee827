#!/usr/bin/env bash
# The raw-pointer passing kernels (kernels/epiphany/raw, built with hopsim-cc)
# and the e-lib ones give identical data, natively and simulated, and
# simulated cycle counts within 2% for every method and n = 1..16.
#   raw_vs_elib.sh HOPSIM PASSING_SCENARIO WORKDIR
set -u
hopsim="$1" scenario="$2" work="$3"
raw_scenario="$(dirname "$scenario")/raw/passing-raw.json"
expect="$(dirname "$0")/expect.sh"
args=(--mode both --set kernel.args.repeat=100)

rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
bash "$expect" --rc 0 --has "identical data" -- "$hopsim" run "$scenario" "${args[@]}" --out elib || exit 1
bash "$expect" --rc 0 --has "identical data" -- "$hopsim" run "$raw_scenario" "${args[@]}" --out raw || exit 1
python3 - elib/results.json raw/results.json <<'PY'
import json, sys
e = json.load(open(sys.argv[1]))
r = json.load(open(sys.argv[2]))
bad = 0
for mode in ("sim", "native"):
    el = {(x["method"], x["n"]): x for x in e[mode]["launches"]}
    rl = {(x["method"], x["n"]): x for x in r[mode]["launches"]}
    assert el.keys() == rl.keys(), "different launches"
    for k in el:
        if el[k]["digest"] != rl[k]["digest"]:
            print(f"FAILED: {mode} {k}: data differ"); bad += 1
worst = {}
el = {(x["method"], x["n"]): x for x in e["sim"]["launches"]}
for x in r["sim"]["launches"]:
    k = (x["method"], x["n"])
    err = abs(x["cycles"] - el[k]["cycles"]) / el[k]["cycles"] * 100
    worst[k[0]] = max(worst.get(k[0], 0), err)
    if err > 2.0:
        print(f"FAILED: {k}: raw {x['cycles']:.0f} vs e-lib {el[k]['cycles']:.0f} cycles ({err:.2f}%)"); bad += 1
print("worst difference per method (%):", {m: round(v, 2) for m, v in worst.items()})
sys.exit(1 if bad else 0)
PY
