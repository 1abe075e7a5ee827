#!/usr/bin/env bash
# hopsim import: the host program's own n,method,ticks file, the sample
# HAM-Offload and hpcc outputs, the shipped reference (round trip), and a
# malformed file refused with its line.
#   import.sh HOPSIM SCENARIO WORKDIR SOURCE_DIR
set -u
hopsim="$1" scenario="$2" work="$3" src="$4"
expect="$(dirname "$0")/expect.sh"
data="$src/tests/traces/data"
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
bash "$expect" --rc 0 -- "$hopsim" run "$scenario" --mode sim --set kernel.args.repeat=2 --set kernel.args.n_max=2 --out run || exit 1
bash "$expect" --rc 0 --has "10 rows from run/pass-sim.csv" -- "$hopsim" import run/pass-sim.csv --format passing --output pass.csv || exit 1
grep -q "^epiphany-e16g301,passing,unicast n=1,host_ticks," pass.csv || { echo "import.sh: FAILED: no unicast n=1 row"; cat pass.csv; exit 1; }
bash "$expect" --rc 0 --has "ham-offload-call" --has ",average," -- "$hopsim" import "$data/ham-offload.txt" --format ham --system xeonphi-knc || exit 1
bash "$expect" --rc 0 --has "MB/s" -- "$hopsim" import "$data/hpcc-ring.txt" --format hpcc --system power6-32way || exit 1
# Outputs that do not name their machine need --system (validate matches rows by system).
for f in ham hpcc; do
  bash "$expect" --rc 2 --has "import --format $f: give --system NAME" -- "$hopsim" import "$data/ham-offload.txt" --format $f \
    || exit 1
done
bash "$expect" --rc 0 -- "$hopsim" import "$src/traces/reference/device-measurements.csv" --format reference --output ref1.csv || exit 1
bash "$expect" --rc 0 -- "$hopsim" import ref1.csv --format reference --output ref2.csv || exit 1
tail -n +2 ref1.csv | cut -d, -f1-6 >a.txt
tail -n +2 ref2.csv | cut -d, -f1-6 >b.txt
diff a.txt b.txt || { echo "import.sh: FAILED: the reference does not survive a round trip"; exit 1; }
bash "$expect" --rc 2 --has "passing-bad-ticks.csv:3" -- "$hopsim" import "$data/passing-bad-ticks.csv" --format passing || exit 1
echo "import.sh: ok"
