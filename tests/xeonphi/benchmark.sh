#!/usr/bin/env bash
# benchmark_ham_offload end to end:
#   benchmark.sh BENCHMARK HOPSIM WORKDIR
# - simulated and native runs print the original's layout; hopsim import --format ham parses both;
# - the simulated empty call on knc-7120p, host pinned near the card, is within 20 % of the
#   published average 1786 ns (reference/device-measurements.csv);
# - bad runtime options, presets and benchmark arguments exit 2 with the
#   option named; the output states its unit.
set -u
bench="$1" hopsim="$2" work="$3"
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
fail() { echo "benchmark.sh: FAILED: $*"; exit 1; }

"$bench" -c -m -y -a -i -o -r 20 -s 65536 --ham-mode sim --ham-preset knc-7120p --ham-cpu-affinity 0 >sim.txt 2>err.txt \
  || { cat err.txt; fail "simulated run exited $?"; }
grep -q "^# Command line was: " sim.txt || fail "no command line comment"
grep -q "^# HAM_MESSAGE_SIZE             4096$" sim.txt || fail "no message size line"
printf 'name\taverage\tmedian\tmin\tmax\tvariance\tstd_error\trelative_std_error\tconf95_error\trelative_conf95_error\tcount\n' >hdr.txt
grep -qxF -f hdr.txt sim.txt || fail "no call header in the original layout"
grep -qP '^copy-in:\t([0-9.]+e[+-][0-9]+\t){10}65536$' sim.txt || fail "copy-in row is not 10 values in scientific notation + data_size"
"$hopsim" import sim.txt --format ham --system xeonphi-knc --output sim.csv >import.txt 2>&1 || { cat import.txt; fail "import of the simulated output"; }
for e in call call-mul copy-in copy-out allocate free; do
  grep -q "^xeonphi-knc,ham-offload-$e,.*,median," sim.csv || fail "imported rows lack ham-offload-$e"
done
# -f: raw samples, one per measured run (warm-up runs dropped).
"$bench" -c -r 20 --warmup-runs 3 -f raw_ --ham-mode sim >/dev/null 2>&1 || fail "run with -f"
[ "$(wc -l <raw_call_time)" -eq 20 ] || fail "raw_call_time does not hold 20 samples"
avg=$(awk -F'\t' '$1=="call:" {print $2}' sim.txt | head -1)
awk -v a="$avg" 'BEGIN { e = (a - 1786.359) / 1786.359; if (e < 0) e = -e; exit !(e <= 0.20) }' \
  || fail "simulated call average $avg ns is not within 20% of 1786 ns"

"$bench" -c -r 200 >native.txt 2>err.txt || { cat err.txt; fail "native run"; }
grep -q "HOPSIM_HAM_MODE              native" native.txt || fail "native run does not say so"
"$hopsim" import native.txt --format ham --system hopsim-native --output native.csv >/dev/null 2>&1 || fail "import of the native output"
grep -q "^hopsim-native,ham-offload-call,.*,count,200," native.csv || fail "native call count is not 200"

"$bench" --bandwidth-table -r 1 --ham-mode sim >bw.txt 2>&1 || fail "bandwidth table"
grep -qP '^67108864\t' bw.txt || fail "bandwidth table lacks 64 MiB"

"$bench" -c --ham-mode gpu >bad.txt 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "ham-mode: 'gpu'" bad.txt || fail "bad --ham-mode: rc $rc"
"$bench" -c --ham-mode sim --ham-preset e16g301 >bad.txt 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "not a xeonphi" bad.txt || fail "epiphany preset in sim mode: rc $rc"
"$bench" -c --ham-mode sim --ham-cpu-affinity 99 >bad.txt 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "core 99 does not exist" bad.txt || fail "bad affinity: rc $rc"
# Its own arguments too: 2 and one line naming what is wrong.
"$bench" -c -r 0 --ham-mode sim >bad.txt 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "error: --runs: Value 0 not in range 1 to 100000000" bad.txt || fail "-r 0: rc $rc"
"$bench" --ham-mode sim >bad.txt 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "error: no test chosen" bad.txt || fail "no test flag: rc $rc"
"$bench" -c --bogus --ham-mode sim >bad.txt 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "error: The following argument was not expected: --bogus" bad.txt || fail "unknown flag: rc $rc"
"$bench" -c -r 3 --ham-mode sim | grep -q "^# times in nanoseconds" || fail "the output states no unit"
# The presets' parameters and sources are listed like the Epiphany ones.
"$hopsim" list params knc-7120p >params.txt 2>&1 || { cat params.txt; fail "hopsim list params knc-7120p"; }
grep -q "^link_latency .*calibrated" params.txt || fail "list params lacks the calibrated link latency"
echo "benchmark.sh: ok (simulated call average $avg ns)"
