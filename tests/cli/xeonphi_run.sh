#!/usr/bin/env bash
# hopsim run / compare / validate of a Xeon Phi scenario: the HAM-Offload
# benchmark as a child process in both modes, its outputs kept, the
# simulated empty call against the published figure, bad arguments refused.
#   xeonphi_run.sh HOPSIM PASSING_SCENARIO WORKDIR SOURCE_DIR
set -u
hopsim="$1" work="$3" src="$4"
expect="$(dirname "$0")/expect.sh"
scenario="$src/kernels/xeonphi/offload-call.json"
small=(--set kernel.args.runs=20 --set 'kernel.args.tests=["call","copy-out"]' --set kernel.args.size=4096)

bash "$expect" --dir "$work" --rc 0 --has "program benchmark_ham_offload | mode both" \
  --has "native: copy-out" --has "sim: copy-out" --has "call 1678.6 ns" --lacks "CHECK FAILED" -- \
  "$hopsim" run "$scenario" --out out "${small[@]}" || exit 1
cd "$work" || exit 1
for f in out/ham-native.txt out/ham-sim.txt out/results.json out/results.csv; do
  [[ -s "$f" ]] || { echo "xeonphi_run.sh: FAILED: $f is missing or empty"; exit 1; }
done
# results.json: both modes, their programs' exit codes, the data agreed.
bash "$expect" --rc 0 --has "ok=True" -- python3 -c 'import json
r = json.load(open("out/results.json"))
ok = r["data_equal"] is True and r["native"]["exit_code"] == 0 and r["sim"]["exit_code"] == 0
ok &= abs(r["sim"]["timings"]["call"] - 1678.577) < 0.01 and r["native"]["timings"]["call"] > 0
print("ok=%r" % ok)' || exit 1
# The simulated empty call against the published HAM figures.
bash "$expect" --rc 0 --has "3 rows matched: 3 within 10%" -- \
  "$hopsim" validate out/results.json --against "$src/traces/reference/device-measurements.csv" --tolerance 10 || exit 1
# Side by side, through the common report.
bash "$expect" --rc 0 --has "hopsim compare | kernel benchmark_ham_offload | machine knc-7120p" \
  --has "data: identical in both modes (2 timings)" --has "copy-out" -- \
  "$hopsim" compare "$scenario" --out cmp "${small[@]}" || exit 1
[[ -s cmp/compare.json && -s cmp/compare.png ]] || { echo "xeonphi_run.sh: FAILED: no compare files"; exit 1; }
# Bad input: an unknown benchmark, a program that does not exist, a bad preset
# parameter; a refused run leaves the earlier results as they were.
cp out/results.json before.json
bash "$expect" --rc 2 --has "kernel.args.tests" --has "'nosuch' is not one of" -- \
  "$hopsim" run "$scenario" --out out '--set=kernel.args.tests=["nosuch"]' || exit 1
cmp -s out/results.json before.json || { echo "xeonphi_run.sh: FAILED: a refused run changed results.json"; exit 1; }
bash "$expect" --rc 2 --has "kernel.args.program: /nonexistent/ham does not exist" -- \
  "$hopsim" run "$scenario" --out bad '--set=kernel.args.program="/nonexistent/ham"' || exit 1
bash "$expect" --rc 2 --has "machine.pcie_lanes" -- \
  "$hopsim" run "$scenario" --out bad --set machine.pcie_lanes=0 || exit 1
echo "xeonphi_run.sh: ok"
