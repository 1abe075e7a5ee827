#!/bin/sh
# Counted compute of count_a2 (count_a2.ll): GetTimeBase around the call
# reads the cycles worked out by hand (9 n + 1), on two runs alike and
# with the host loaded; the annotated model charges nothing for the loop;
# every mode prints the same sums.
#   counted.sh PROGRAM N EXPECTED_CYCLES
set -eu
exe="$1"; n="$2"; want="$3"
out=$(mktemp -d "${TMPDIR:-/tmp}/hopsim-bgq-counted.XXXXXX")
load=""
trap 'rm -rf "$out"; [ -z "$load" ] || kill $load 2>/dev/null || true' EXIT
run() {  # NAME ENV...
  name="$1"; shift
  env "$@" HOPSIM_QUIET=1 "$exe" "$n" > "$out/$name.out" 2> "$out/$name.err" ||
    { echo "$name run failed:"; cat "$out/$name.out" "$out/$name.err"; exit 1; }
}
cycles() { sed -n 's/^count_sum: \([0-9]*\) cycles$/\1/p' "$out/$1.err"; }
run counted1 HOPSIM_MODE=sim HOPSIM_COMPUTE=counted
( while :; do :; done ) &
load=$!
run counted2 HOPSIM_MODE=sim HOPSIM_COMPUTE=counted
kill $load; load=""
run annotated HOPSIM_MODE=sim
run native HOPSIM_MODE=native
cat "$out/counted1.err"
[ "$(cycles counted1)" = "$want" ] || { echo "counted: $(cycles counted1) cycles, worked out by hand: $want"; exit 1; }
[ "$(cycles counted2)" = "$want" ] || { echo "counted under host load: $(cycles counted2) cycles, not $want"; exit 1; }
[ "$(cycles annotated)" = 0 ] || { echo "annotated charged the loop: $(cycles annotated) cycles"; exit 1; }
[ "$(wc -l < "$out/counted1.out")" = 32 ] || { echo "expected 32 ranks' sums"; cat "$out/counted1.out"; exit 1; }
# Native ranks print concurrently: compare the lines in any order.
for m in counted1 counted2 annotated native; do sort "$out/$m.out" > "$out/$m.sorted"; done
for m in counted2 annotated native; do
  cmp -s "$out/counted1.sorted" "$out/$m.sorted" ||
    { echo "counted and $m sums differ:"; diff "$out/counted1.sorted" "$out/$m.sorted"; exit 1; }
done
echo "bgq counted: PASSED"
