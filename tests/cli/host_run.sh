#!/usr/bin/env bash
# hopsim run / compare of a host scenario: the ring natively and on the host
# model, from a host preset and from a profile of this machine; bad input.
#   host_run.sh HOPSIM PASSING_SCENARIO WORKDIR SOURCE_DIR
set -u
hopsim="$1" work="$3" src="$4"
expect="$(dirname "$0")/expect.sh"
scenario="$src/kernels/host/ring.json"
small=(--set 'kernel.args.procs=[2]' --set 'kernel.args.sizes=["64KiB"]' --set kernel.args.reps=1
       --set kernel.args.min_steps=2 --set 'kernel.args.bytes="256KiB"')

bash "$expect" --dir "$work" --rc 0 --has "machine host-smp32 (32 cores) | program ring | mode both" \
  --has "2 procs double-copy 64 KiB" --has "2 procs zero-copy 64 KiB" --has "all matched" -- \
  "$hopsim" run "$scenario" --out out "${small[@]}" || exit 1
cd "$work" || exit 1
bash "$expect" --rc 0 --has "ok=True" -- python3 -c 'import json
r = json.load(open("out/results.json"))
n, s = r["native"]["cells"], r["sim"]["cells"]
ok = len(n) == 3 and len(s) == 3 and all(c["bandwidth_Bps"] > 0 for c in n + s)
ok &= all(c["messages_checked"] > 0 for c in n) and r["data_equal"] is None
print("ok=%r" % ok)' || exit 1
# The model of this machine: a quick calibration, then the profile as the machine.
"$hopsim" host calibrate --quick --out profile.json > calibrate.txt 2>&1 || { cat calibrate.txt; exit 1; }
bash "$expect" --rc 0 --has "hopsim compare | kernel ring" --has "per ring step" \
  --has "data: not compared between the modes" --has "native MB/s" -- \
  "$hopsim" compare "$scenario" --out cmp "${small[@]}" '--set=machine.preset="profile.json"' || exit 1
[[ -s cmp/compare.json && -s cmp/compare.png ]] || { echo "host_run.sh: FAILED: no compare files"; exit 1; }
# Bad input.
bash "$expect" --rc 2 --has "kernel.args.procs: 1 is out of range [2, 64]" -- \
  "$hopsim" run "$scenario" --out bad '--set=kernel.args.procs=[1]' || exit 1
bash "$expect" --rc 2 --has "kernel.args.transports" --has "'pigeon' is not one of" -- \
  "$hopsim" run "$scenario" --out bad '--set=kernel.args.transports=["pigeon"]' || exit 1
bash "$expect" --rc 2 --has "takes no overrides" -- \
  "$hopsim" run "$scenario" --out bad --set machine.cores=4 || exit 1
bash "$expect" --rc 2 --has "preset file 'nowhere.json' does not exist" -- \
  "$hopsim" run "$scenario" --out bad '--set=machine.preset="nowhere.json"' || exit 1
bash "$expect" --rc 2 --has "outputs.trace: the host family writes no trace" -- \
  "$hopsim" run "$scenario" --out bad --trace bad.db || exit 1
echo "host_run.sh: ok"
