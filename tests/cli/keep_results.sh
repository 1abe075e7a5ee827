#!/usr/bin/env bash
# Nothing already written is lost: a failing run into the folder of a good run
# leaves that run's results untouched.
#   keep_results.sh HOPSIM SCENARIO WORKDIR MODE
set -u
hopsim="$1" scenario="$2" work="$3" mode="$4"
expect="$(dirname "$0")/expect.sh"
fast=(--set kernel.args.repeat=2 --set kernel.args.n_max=1)

bash "$expect" --dir "$work" --rc 0 -- "$hopsim" run "$scenario" --mode "$mode" --out out "${fast[@]}" || exit 1
cd "$work" || exit 1
mkdir before && cp -p out/results.json out/results.csv before/ || exit 1

bash "$expect" --rc 5 --has "core(1,1)" --has "outside" -- \
  "$hopsim" run "$scenario" --mode "$mode" --out out "${fast[@]}" --set 'kernel.args.methods=["writeOutside"]' || exit 1

status=0
for f in results.json results.csv; do
  if cmp "before/$f" "out/$f"; then
    echo "keep_results.sh: $f unchanged"
  else
    echo "keep_results.sh: FAILED: the failed run changed out/$f"
    status=1
  fi
done
exit $status
