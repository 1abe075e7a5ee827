#!/usr/bin/env bash
# Like keep_results.sh, for the files the kernel writes itself (pass-<mode>.csv):
# a failing run must not truncate them either.
#   keep_kernel_files.sh HOPSIM SCENARIO WORKDIR MODE
set -u
hopsim="$1" scenario="$2" work="$3" mode="$4"
expect="$(dirname "$0")/expect.sh"
fast=(--set kernel.args.repeat=2 --set kernel.args.n_max=1)

bash "$expect" --dir "$work" --rc 0 -- "$hopsim" run "$scenario" --mode "$mode" --out out "${fast[@]}" || exit 1
cd "$work" || exit 1
mkdir before && cp -p out/* before/ || exit 1
bash "$expect" --rc 5 -- \
  "$hopsim" run "$scenario" --mode "$mode" --out out "${fast[@]}" --set 'kernel.args.methods=["writeOutside"]' || exit 1
status=0
for f in before/*; do
  cmp "$f" "out/${f#before/}" || { echo "keep_kernel_files.sh: FAILED: the failed run changed out/${f#before/}"; status=1; }
done
ls -la before out
exit $status
