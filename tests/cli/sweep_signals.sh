#!/usr/bin/env bash
# SIGINT, SIGTERM and SIGKILL at 21 points of a sweep (pseudo-random, fixed
# seed, 5% to 115% of the time an uninterrupted sweep took here, so that
# the points fall inside the sweep on any machine), each run resuming the
# folder the one before left.
# After each: every point file is whole JSON, nothing *.partial is left after
# SIGINT or SIGTERM, and a results.csv, if there, is the whole table of an
# uninterrupted sweep, byte for byte (the folder then starts again). At
# least 7 runs must have been stopped by their signal and 3 must have
# resumed a folder. Then a sweep without a signal finishes the folder with
# the uninterrupted sweep's table.
#   sweep_signals.sh HOPSIM SCENARIO WORKDIR
set -u
hopsim="$1" work="$3"
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
cat >sweep.json <<'JSON'
{
  "kind": "traffic",
  "scenario": {
    "network": {"preset": "unit-network", "topology": "mesh", "dims": [8, 8]},
    "phases": {"warmup": 500, "measure": 150000, "drain": 60000}
  },
  "sweep": {
    "traffic.pattern": ["uniform", "transpose"],
    "traffic.load": [0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4]
  }
}
JSON
start=$(date +%s%N)
"$hopsim" sweep sweep.json --out ref --progress off >ref.log 2>&1 || { cat ref.log; echo "sweep_signals.sh: the sweep failed"; exit 1; }
ref_ms=$((($(date +%s%N) - start) / 1000000))
echo "uninterrupted sweep: $ref_ms ms"
# A point file is one JSON object: whole when it starts with { and ends with }.
whole_json() {
  for f in "$@"; do
    [[ "$(head -c 1 "$f")" == "{" && "$(tail -c 2 "$f" | tr -d '\n')" == "}" ]] || { echo "not whole: $f"; return 1; }
  done
}
fail() { echo "sweep_signals.sh: FAILED at point $i (SIG$sig after ${delay}s): $*"; cat run.log; exit 1; }
seed=4242
resumed=0
stopped=0
for i in $(seq 1 21); do
  sig=$(echo INT TERM KILL | cut -d' ' -f$(((i - 1) % 3 + 1)))
  seed=$(((seed * 1103515245 + 12345) % 2147483648))
  ms=$((ref_ms * (5 + seed % 111) / 100 + 1))
  delay=$(printf '%d.%03d' $((ms / 1000)) $((ms % 1000)))
  timeout -s "$sig" "$delay" "$hopsim" sweep sweep.json --out out --progress lines >run.log 2>&1
  rc=$?
  grep -q "points already done" run.log && resumed=$((resumed + 1))
  [[ $rc -ne 0 ]] && stopped=$((stopped + 1))
  if [[ -d out/points ]]; then
    files=$(find out/points -name '*.json')
    [[ -z "$files" ]] || whole_json $files || fail "a point file is not whole JSON"
  fi
  if [[ "$sig" != KILL ]]; then
    left=$(find out -name '*.partial*')
    [[ -z "$left" ]] || fail "partial files left: $left"
  fi
  if [[ -e out/results.csv ]]; then
    cmp -s ref/results.csv out/results.csv || fail "results.csv is not the whole table"
    echo "point $i: SIG$sig after ${delay}s: exit $rc, the sweep finished with the whole table"
    rm -rf out
    continue
  fi
  echo "point $i: SIG$sig after ${delay}s: exit $rc, $(find out/points -name '*.json' 2>/dev/null | wc -l) points done"
done
[[ $stopped -ge 7 && $resumed -ge 3 ]] ||
  { echo "sweep_signals.sh: FAILED: only $stopped runs were stopped by their signal, $resumed resumed a folder"; exit 1; }
"$hopsim" sweep sweep.json --out out --progress off >run.log 2>&1 || { cat run.log; echo "sweep_signals.sh: FAILED: the last sweep failed"; exit 1; }
cmp ref/results.csv out/results.csv || { echo "sweep_signals.sh: FAILED: the resumed table differs"; exit 1; }
echo "sweep_signals.sh: ok ($stopped runs stopped by their signal, $resumed resumed a folder)"
