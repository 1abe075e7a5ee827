#!/usr/bin/env bash
# SIGINT, SIGTERM and SIGKILL at 21 points (pseudo-random, fixed seed, between
# 0.05 and 3 s) of a long simulated run with --trace. After each: the
# results an earlier run left in the folder are unchanged and no other
# results file appeared; after SIGINT and SIGTERM nothing *.partial is left,
# the run said "interrupted" and exited non-zero, and its trace (if it got
# that far) opens marked incomplete; after SIGKILL the trace, if any, is the
# writer's run.db.partial and opens marked incomplete.
#   signals.sh HOPSIM SCENARIO WORKDIR
set -u
hopsim="$1" scenario="$2" work="$3"
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
"$hopsim" run "$scenario" --mode sim --set kernel.args.repeat=2 --set kernel.args.n_max=1 --out out >/dev/null 2>&1 ||
  { echo "signals.sh: the short run failed"; exit 1; }
(cd out && ls) >before.list
cp out/results.json before.json
fail() { echo "signals.sh: FAILED at point $i (SIG$sig after ${delay}s): $*"; cat run.log; exit 1; }
seed=12345
for i in $(seq 1 21); do
  sig=$(echo INT TERM KILL | cut -d' ' -f$(((i - 1) % 3 + 1)))
  seed=$(((seed * 1103515245 + 12345) % 2147483648))
  delay=$(printf '0.%02d' $((5 + seed % 95)))
  [[ $((seed % 3)) -eq 0 ]] && delay="$((1 + seed % 2))$delay" && delay="${delay/0./.}"
  rm -f run.db run.db.partial run.db.incomplete
  timeout -s "$sig" "$delay" "$hopsim" run "$scenario" --mode sim --set kernel.args.repeat=10000000 \
    --out out --trace run.db >run.log 2>&1
  rc=$?
  [[ $rc -ne 0 ]] || fail "exit 0"
  cmp -s before.json out/results.json || fail "results.json changed"
  (cd out && ls | grep -v '\.partial$') | cmp -s before.list - || fail "the results folder changed: $(ls out)"
  if [[ "$sig" == KILL ]]; then
    [[ ! -e run.db ]] || fail "a trace in place after SIGKILL"
    trace=run.db.partial
  else
    ls out | grep -q '\.partial$' && fail "partial files left: $(ls out)"
    trace=run.db
    [[ -e run.db || ! -e run.db.partial ]] || fail "run.db.partial left after SIG$sig"
    if [[ -e run.db ]]; then grep -q interrupted run.log || fail "no 'interrupted' message"; fi
  fi
  if [[ -e "$trace" ]]; then
    "$hopsim" trace stats "$trace" >stats.log 2>&1
    src=$?
    [[ $src -eq 3 ]] && grep -q INCOMPLETE stats.log || { cat stats.log; fail "trace stats exit $src, not INCOMPLETE"; }
    echo "point $i: SIG$sig after ${delay}s: exit $rc, trace $trace incomplete"
  else
    echo "point $i: SIG$sig after ${delay}s: exit $rc, no trace yet"
  fi
  rm -f out/*.partial
done
rm -f run.db run.db.partial
echo "signals.sh: ok"
