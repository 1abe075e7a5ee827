#!/bin/sh
# Counted compute of count_dev.elf (count_kernel.ll): the timer reads the
# cycles worked out by hand, on two runs alike; n iterations count 8 (n - 1)
# instructions more than one; the annotated model does not charge the
# loop's instructions (no runtime call in it); native computes the same word.
#   counted.sh DIR HOST_EXE N EXPECTED_CYCLES
set -eu
dir="$1"; exe="$2"; n="$3"; want="$4"
cd "$dir"
out=$(mktemp -d "${TMPDIR:-/tmp}/hopsim-counted.XXXXXX")
trap 'rm -rf "$out"' EXIT
run() {  # NAME N ENV...
  name="$1"; iterations="$2"; shift 2
  env "$@" HOPSIM_STATS=1 "$exe" count_dev.elf "$iterations" > "$out/$name.out" 2> "$out/$name.err" ||
    { echo "$name run failed:"; cat "$out/$name.out" "$out/$name.err"; exit 1; }
}
run counted1 "$n" HOPSIM_MODE=sim HOPSIM_COMPUTE=counted
run counted2 "$n" HOPSIM_MODE=sim HOPSIM_COMPUTE=counted
run once 1 HOPSIM_MODE=sim HOPSIM_COMPUTE=counted
run annotated "$n" HOPSIM_MODE=sim HOPSIM_COMPUTE=annotated
run native "$n" HOPSIM_MODE=native
cat "$out/counted1.out" "$out/counted1.err"
got=$(sed -n 's/^count: cycles //p' "$out/counted1.err")
[ "$got" = "$want" ] || { echo "counted: $got cycles, worked out by hand: $want"; exit 1; }
cmp -s "$out/counted1.err" "$out/counted2.err" || { echo "two counted runs differ:"; diff "$out/counted1.err" "$out/counted2.err"; exit 1; }
insns() { sed -n 's/.*; \([0-9]*\) instructions counted$/\1/p' "$out/$1.err"; }
delta=$(( $(insns counted1) - $(insns once) ))
[ "$delta" = $(( 8 * (n - 1) )) ] || { echo "counted: $n iterations count $delta instructions more than one, not $(( 8 * (n - 1) ))"; exit 1; }
ann=$(sed -n 's/^count: cycles //p' "$out/annotated.err")
[ "$ann" -lt "$want" ] || { echo "annotated charged the loop's instructions ($ann cycles)"; exit 1; }
for m in counted1 annotated; do
  cmp -s "$out/native.out" "$out/$m.out" || { echo "native and $m data differ:"; diff "$out/native.out" "$out/$m.out"; exit 1; }
done
echo "counted: PASSED"
