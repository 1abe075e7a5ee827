#!/usr/bin/env bash
# Every family's results.json carries the common schema (docs/results.md):
# schema, hopsim, scenario, family, mode, report {per, timings, ...}.
#   results_schema.sh HOPSIM PASSING_SCENARIO WORKDIR SOURCE_DIR
set -u
hopsim="$1" passing="$2" work="$3" src="$4"
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
run() {  # NAME SCENARIO ARGS...
  local name="$1" scenario="$2"; shift 2
  "$hopsim" run "$scenario" --mode sim --out "$name" "$@" > "$name.log" 2>&1 ||
    { echo "results_schema.sh: FAILED: $name"; cat "$name.log"; exit 1; }
}
run epiphany "$passing" --set kernel.args.repeat=2 --set kernel.args.n_max=1
run bgq "$src/kernels/bgq/halo.json" --set kernel.args.iterations=1 --set kernel.args.msg_size=4096
run xeonphi "$src/kernels/xeonphi/offload-call.json" --set kernel.args.runs=5 '--set=kernel.args.tests=["call"]'
run host "$src/kernels/host/ring.json" '--set=kernel.args.procs=[2]' '--set=kernel.args.sizes=["64KiB"]'
python3 - <<'PY' || exit 1
import json, math, sys
ok = True
for fam in ["epiphany", "bgq", "xeonphi", "host"]:
    d = json.load(open(fam + "/results.json"))
    r = d.get("report", {})
    good = (d.get("schema") == "hopsim-results/1" and d.get("family") == fam and d.get("mode") == "sim"
            and "version" in d.get("hopsim", {}) and isinstance(d.get("scenario"), dict)
            and isinstance(r.get("per"), str) and r.get("timings") and r.get("exit_code") == 0
            and all(t["name"] and t["sim_seconds"] and t["sim_seconds"] > 0 and t["native_seconds"] is None
                    for t in r["timings"]))
    print(fam, "ok" if good else "BAD", len(r.get("timings", [])), "timings")
    ok &= bool(good)
sys.exit(0 if ok else 1)
PY
echo "results_schema.sh: ok"
