#!/usr/bin/env bash
# A trace that fills the disk (a 2 MB file size limit stands in for it):
# the run stops with exit 2 and one message naming the trace, the results
# of an earlier run in the folder are untouched, and the trace left opens,
# marked incomplete.
#   trace_disk_full.sh HOPSIM SCENARIO WORKDIR
set -u
hopsim="$1" scenario="$2" work="$3"
expect="$(dirname "$0")/expect.sh"
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
bash "$expect" --rc 0 -- "$hopsim" run "$scenario" --mode sim --set kernel.args.repeat=1 --set kernel.args.n_max=1 --out run || exit 1
cp run/results.json before.json
# An ignored SIGXFSZ is inherited: a write past the limit then fails with EFBIG.
trap '' XFSZ
bash "$expect" --rc 2 --has "trace t.db: writing failed" --lacks "sc_stop has already been called" -- \
  bash -c "ulimit -f 2000 && exec \"$hopsim\" run \"$scenario\" --mode sim --set kernel.args.repeat=20 --trace t.db --out run" || exit 1
trap - XFSZ
cmp -s before.json run/results.json || { echo "trace_disk_full.sh: FAILED: the earlier results changed"; exit 1; }
bash "$expect" --rc 3 --has "INCOMPLETE" -- "$hopsim" trace stats t.db || exit 1
echo "trace_disk_full.sh: ok"
