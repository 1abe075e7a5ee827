#!/usr/bin/env bash
# Ctrl-C (or SIGTERM) during a long simulated run: the run stops with a
# message naming the signal and a non-zero exit, its trace is readable and
# marked incomplete, and the results of an earlier run in the same folder
# are untouched.
#   interrupt.sh HOPSIM SCENARIO WORKDIR [INT|TERM]
set -u
hopsim="$1" scenario="$2" work="$3" sig="${4:-INT}"
case "$sig" in
  INT) message="interrupted (Ctrl-C)" ;;
  TERM) message="interrupted (SIGTERM)" ;;
  *) echo "interrupt.sh: signal INT or TERM, not $sig"; exit 1 ;;
esac
expect="$(dirname "$0")/expect.sh"
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
bash "$expect" --rc 0 -- "$hopsim" run "$scenario" --mode sim --set kernel.args.repeat=2 --set kernel.args.n_max=1 --out out || exit 1
cp out/results.json before.json
timeout -s "$sig" 3 "$hopsim" run "$scenario" --mode sim --set kernel.args.repeat=10000000 --out out --trace run.db \
  >run.log 2>&1
rc=$?
grep -qF "$message" run.log || { echo "interrupt.sh: FAILED: no '$message' message (rc $rc)"; cat run.log; exit 1; }
[[ $rc -ne 0 ]] || { echo "interrupt.sh: FAILED: exit 0 after SIG$sig"; exit 1; }
cmp -s before.json out/results.json || { echo "interrupt.sh: FAILED: results.json changed"; exit 1; }
bash "$expect" --rc 3 --has "INCOMPLETE" -- "$hopsim" trace stats run.db || exit 1
echo "interrupt.sh: ok (rc $rc)"
