#!/usr/bin/env bash
# A sweep is resumable: after a "crash" (a point's result removed, another
# left half-written), a second sweep runs only those points and writes the
# same table.
#   sweep_resume.sh HOPSIM SCENARIO WORKDIR SWEEPFILE
set -u
hopsim="$1" work="$3" sweep="$4"
expect="$(dirname "$0")/expect.sh"

bash "$expect" --dir "$work" --rc 0 --has "6 points, 6 rows" --has "traffic.pattern" --has "avg_latency" \
  --has "sweep: 6/6" -- "$hopsim" sweep "$sweep" --out out --progress lines || exit 1
cd "$work" || exit 1
cp out/results.csv first.csv || exit 1
[[ $(ls out/points | wc -l) == 6 ]] || { echo "sweep_resume.sh: FAILED: expected 6 point files"; exit 1; }
rm out/points/000002.json
head -c 20 out/points/000004.json > out/points/000004.json.tmp && mv out/points/000004.json.tmp out/points/000004.json
bash "$expect" --rc 0 --has "4 of 6 points already done" --has "sweep: 2/2" \
  -- "$hopsim" sweep "$sweep" --out out --progress lines || exit 1
if cmp first.csv out/results.csv; then
  echo "sweep_resume.sh: resumed table equals the first one"
else
  echo "sweep_resume.sh: FAILED: the resumed table differs"; exit 1
fi
# Partial point files (NAME.partial.HOST.PID) that a killed run on this host
# left (its process gone, written before this sweep started) are removed.
# Kept: a live process's; a dead process's written after the start (not
# left by an earlier run); another host's (its process cannot be checked
# from here); one whose process id is out of range.
host=$(uname -n | tr -c 'A-Za-z0-9\n-' '-')
[[ -n "$host" ]] || host=host
sh -c 'exit 0' &
dead=$!
wait $dead
sh -c 'exit 0' &
dead2=$!
wait $dead2
p=out/points/000001.json.partial
stale=$p.$host.$dead live=$p.$host.$$ other=$p.other-host.$dead fresh=$p.$host.$dead2 junk=$p.$host.99999999999999999999
printf '{"col' | tee "$stale" "$live" "$other" "$fresh" "$junk" > /dev/null
touch -d '1 hour ago' "$stale" "$live" "$other" "$junk"
touch -d '1 hour' "$fresh"  # written after the sweep began
bash "$expect" --rc 0 --has "6 of 6 points already done" -- "$hopsim" sweep "$sweep" --out out --progress lines || exit 1
[[ ! -e "$stale" ]] || { echo "sweep_resume.sh: FAILED: a stale partial file stays"; exit 1; }
for f in "$live" "$other" "$fresh" "$junk"; do
  [[ -e "$f" ]] || { echo "sweep_resume.sh: FAILED: $f was removed"; exit 1; }
done
rm -f "$live" "$other" "$fresh" "$junk"
cmp first.csv out/results.csv || { echo "sweep_resume.sh: FAILED: the table changed"; exit 1; }
# A different sweep into the same folder does not reuse the old points.
bash "$expect" --rc 0 --lacks "already done" --has "sweep: 6/6" \
  -- "$hopsim" sweep "$sweep" --out out --progress lines --sweep traffic.load=0.2,0.4,0.6 || exit 1
