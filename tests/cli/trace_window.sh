#!/usr/bin/env bash
# --trace-window and --trace-max-size: a simulated run traced in a window
# holds only the transactions, hops and PE states that overlap it (PE states
# clipped), with every launch and link counter; a size limit stops the
# detail, says so once, and records from which cycle; bad values exit 2.
#   trace_window.sh HOPSIM SCENARIO WORKDIR
set -u
hopsim="$1" scenario="$2" work="$3"
expect="$(dirname "$0")/expect.sh"
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
small=(--mode sim --set kernel.args.repeat=2 --set kernel.args.n_max=2 --out out)
bash "$expect" --rc 0 -- "$hopsim" run "$scenario" "${small[@]}" --trace all.db --trace-detail hops || exit 1
bash "$expect" --rc 0 -- "$hopsim" run "$scenario" "${small[@]}" --trace win.db --trace-detail hops \
  --trace-window 20000:60000 || exit 1
for db in all win; do
  for t in transactions hops pe_states launches link_counters meta; do
    bash "$expect" --rc 0 -- "$hopsim" trace export $db.db --csv $t --output $db-$t.csv || exit 1
  done
done
python3 - <<'PY' || exit 1
import csv
def rows(name): return list(csv.DictReader(open(name)))
b, e = 20000.0, 60000.0
at, wt = rows("all-transactions.csv"), rows("win-transactions.csv")
inside = [t for t in at if float(t["arrive"]) >= b and float(t["inject"]) < e]
assert wt and len(wt) == len(inside) < len(at), (len(wt), len(inside), len(at))
assert [(t["src"], t["dst"], t["inject"]) for t in wt] == [(t["src"], t["dst"], t["inject"]) for t in inside]
ah, wh = rows("all-hops.csv"), rows("win-hops.csv")
assert len(wh) == len([h for h in ah if float(h["leave"]) >= b and float(h["enter"]) < e]) > 0
for s in rows("win-pe_states.csv"):
    assert b <= float(s["start"]) <= float(s["end"]) <= e, s
assert len(rows("win-launches.csv")) == len(rows("all-launches.csv")) > 0
assert rows("win-link_counters.csv") == rows("all-link_counters.csv")
meta = {r["key"]: r["value"] for r in rows("win-meta.csv")}
assert meta["window"] == "20000:60000", meta.get("window")
PY
# A size limit far below the run's detail.
bash "$expect" --rc 0 --has "reached its size limit" -- "$hopsim" run "$scenario" "${small[@]}" --trace lim.db \
  --trace-detail hops --trace-max-size "100 kB" || exit 1
bash "$expect" --rc 0 -- "$hopsim" trace export lim.db --csv meta --output lim-meta.csv || exit 1
grep -q '^detail_stopped_at,' lim-meta.csv || { echo "trace_window.sh: FAILED: no detail_stopped_at"; exit 1; }
bash "$expect" --rc 0 -- "$hopsim" trace export lim.db --csv transactions --output lim-transactions.csv || exit 1
lim=$(wc -l <lim-transactions.csv) all=$(wc -l <all-transactions.csv)
[[ $lim -gt 1 && $lim -lt $((all / 2)) ]] || { echo "trace_window.sh: FAILED: $lim of $all transactions under a 100 kB limit"; exit 1; }
# Bad values: exit 2 naming the key, before anything is written.
bash "$expect" --rc 2 --has "outputs.trace_window: '60000:20000': the window ends before it begins" -- \
  "$hopsim" run "$scenario" "${small[@]}" --trace bad.db --trace-window 60000:20000 || exit 1
bash "$expect" --rc 2 --has "outputs.trace_window: 'soon' is neither cycles" -- \
  "$hopsim" run "$scenario" "${small[@]}" --trace bad.db --trace-window soon:5 || exit 1
bash "$expect" --rc 2 --has "outputs.trace_max_size" -- \
  "$hopsim" run "$scenario" "${small[@]}" --trace bad.db --trace-max-size lots || exit 1
[[ ! -e bad.db ]] || { echo "trace_window.sh: FAILED: a refused run wrote its trace"; exit 1; }
echo "trace_window.sh: ok"
