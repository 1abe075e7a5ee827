#!/usr/bin/env bash
# `hopsim xeonphi pcie` end to end: the model's prediction as a reference
# CSV, compared with itself (every row 0%), with an imported probe output
# (pageable rows listed as not modelled, the tolerance deciding the exit
# status), the committed pcie-gen5-x16 prediction still being what the
# preset predicts, and the committed H200 measurement against it
# (docs/validation.md quotes both).
#
#   pcie.sh HOPSIM SOURCE_DIR WORK
set -u
hopsim=$1 src=$2 work=$3
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
fail=0
bad() { echo "FAIL: $*"; fail=1; }

"$hopsim" xeonphi pcie --machine pcie-gen5-x16 --out pred.csv || bad "prediction exit $?"
rows=$(grep -c '^pcie-gen5-x16,' pred.csv)
# 17 sizes x 2 directions + 2 latencies + 1 round trip, median and bandwidth each.
[[ $rows -eq $(( (17 * 2 + 3) * 2 )) ]] || bad "prediction has $rows rows"
grep -q '^pcie-gen5-x16,pcie-copy,h2d pinned 268435456 B,median,' pred.csv || bad "no 256 MiB h2d row"
grep -q '^pcie-gen5-x16,pcie-flag-round-trip,host-device-host mapped 8 B,median,' pred.csv || bad "no round trip"
# Large copies approach the link's payload rate (57.6 GB/s for Gen5 x16 with 256-byte payloads), never beat it.
bw=$(grep '^pcie-gen5-x16,pcie-copy,d2h pinned 268435456 B,bandwidth,' pred.csv | cut -d, -f5)
awk -v b="$bw" 'BEGIN { exit !(b > 50 && b < 57.7) }' || bad "256 MiB d2h bandwidth $bw GB/s"

out=$("$hopsim" xeonphi pcie --machine pcie-gen5-x16 --against pred.csv 2>&1); rc=$?
echo "$out" | tail -3
[[ $rc -eq 0 ]] || bad "against itself: exit $rc"
grep -q '37 compared: 37 within 25%, 0 beyond; 0 measured rows not modelled' <<<"$out" || bad "against itself"

# A measurement: the probe's output imported.
"$hopsim" import "$src/tests/traces/data/pcie-probe.csv" --format pcie --system test-device --output measured.csv ||
  bad "import exit $?"
out=$("$hopsim" xeonphi pcie --machine pcie-gen5-x16 --against measured.csv 2>&1); rc=$?
echo "$out"
[[ $rc -eq 3 ]] || bad "beyond tolerance: exit $rc, expected 3"
grep -q 'measured, not modelled:' <<<"$out" || bad "pageable not listed"
grep -q 'pcie-copy .*d2h pageable 1048576 B' <<<"$out" || bad "the pageable row"
grep -q '3 compared: ' <<<"$out" || bad "3 rows compared"
"$hopsim" xeonphi pcie --machine pcie-gen5-x16 --against measured.csv --tolerance 100000 >/dev/null ||
  bad "wide tolerance: exit $?"

# The committed prediction is what the preset predicts today.
"$hopsim" xeonphi pcie --machine pcie-gen5-x16 --system pcie-gen5-x16 --out now.csv >/dev/null
grep -v '^#' "$src/traces/reference/pcie-gen5-x16-prediction.csv" > committed.csv
diff committed.csv now.csv || bad "traces/reference/pcie-gen5-x16-prediction.csv is no longer what the model predicts"

# The committed measurement: its raw output imports to the committed figures,
# and the comparison docs/validation.md quotes.
(cd "$src" && "$hopsim" import traces/reference/nvidia-h200-pcie/probe-1.csv --format pcie --system nvidia-h200 \
  --output "$work/h200.csv") >/dev/null || bad "import of the H200 probe: exit $?"
diff "$src/traces/reference/nvidia-h200-pcie.csv" h200.csv || bad "the H200 figures differ from their import"
out=$("$hopsim" xeonphi pcie --machine pcie-gen5-x16 --against "$src/traces/reference/nvidia-h200-pcie.csv" 2>&1); rc=$?
[[ $rc -eq 3 ]] || bad "H200 comparison: exit $rc, expected 3"
grep -q '37 compared: 18 within 25%, 19 beyond; 58 measured rows not modelled' <<<"$out" || bad "H200 comparison: $(tail -1 <<<"$out")"
grep -Eq 'pcie-flag-round-trip +host-device-host mapped 8 B +433.3 +1811.0 +-76.1%' <<<"$out" || bad "H200 round trip row"
# The same comparison as CSV, for plotting: a header and one row per compared median.
"$hopsim" xeonphi pcie --machine pcie-gen5-x16 --against "$src/traces/reference/nvidia-h200-pcie.csv" --csv cmp.csv \
  >/dev/null
[[ $(head -1 cmp.csv) == experiment,configuration,model_ns,measured_ns,error_percent,model_GBps,measured_GBps,within ]] ||
  bad "comparison CSV header: $(head -1 cmp.csv)"
[[ $(($(wc -l <cmp.csv) - 1)) -eq 37 ]] || bad "comparison CSV rows: $(wc -l <cmp.csv)"
grep -q '^pcie-flag-round-trip,host-device-host mapped 8 B,433.3,1811.0,-76.07,0.018,0.004,0$' cmp.csv ||
  bad "comparison CSV round trip row"

# Overrides reach the model: a Gen3 link is slower.
"$hopsim" xeonphi pcie --machine pcie-gen5-x16 --set pcie_gen=3 --out gen3.csv >/dev/null || bad "--set exit $?"
bw3=$(grep '^pcie-gen5-x16,pcie-copy,d2h pinned 268435456 B,bandwidth,' gen3.csv | cut -d, -f5)
awk -v b="$bw3" 'BEGIN { exit !(b > 12 && b < 15.8) }' || bad "Gen3 x16 bandwidth $bw3 GB/s"

exit $fail
