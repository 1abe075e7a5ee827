#!/usr/bin/env bash
# A simulated run with --trace, then trace stats and the Perfetto and CSV
# exports: valid trace-event JSON with a track per PE and per link, and as
# many events of each kind as the trace has rows: a slice per PE state and
# per hop, two slices and one flow (start and end, same id, from the
# source's track to the destination's) per transaction, a counter per link
# bucket, a slice per launch at its start.
#   trace_export.sh HOPSIM SCENARIO WORKDIR
set -u
hopsim="$1" scenario="$2" work="$3"
expect="$(dirname "$0")/expect.sh"
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
bash "$expect" --rc 0 --has "trace: run.db" -- "$hopsim" run "$scenario" --mode sim --set kernel.args.repeat=2 \
  --set kernel.args.n_max=2 --out out --trace run.db --trace-detail hops || exit 1
bash "$expect" --rc 0 --has "complete" --has "hottest links" --has "eject (0,0)" -- "$hopsim" trace stats run.db || exit 1
bash "$expect" --rc 0 --has "wrote run.json" -- "$hopsim" trace export run.db --perfetto run.json || exit 1
bash "$expect" --rc 0 -- "$hopsim" trace export run.db --csv links --output links.csv || exit 1
for t in transactions hops pe_states link_counters launches; do
  bash "$expect" --rc 0 -- "$hopsim" trace export run.db --csv $t --output $t.csv || exit 1
done
python3 - <<'PY' || exit 1
import json, csv
d = json.load(open("run.json"))
ev = d["traceEvents"]
x = [e for e in ev if e.get("ph") == "X"]
names = [e for e in ev if e.get("ph") == "M" and e.get("name") == "thread_name"]
assert x, "no X events"
assert len(names) >= 16, f"only {len(names)} thread_name events"
rows = list(csv.DictReader(open("links.csv")))
assert len(rows) == 243, f"{len(rows)} links in links.csv"
table = {t: list(csv.DictReader(open(t + ".csv"))) for t in
         ("transactions", "hops", "pe_states", "link_counters", "launches")}
def count(pred): return sum(1 for e in ev if pred(e))
def check(what, got, want):
    assert got == want, f"{what}: {got} events, the trace has {want}"
txns = table["transactions"]
assert txns, "no transactions"
check("pe slices", count(lambda e: e["ph"] == "X" and e.get("cat") == "pe"), len(table["pe_states"]))
check("hop slices", count(lambda e: e["ph"] == "X" and e.get("cat") == "hop"), len(table["hops"]))
check("transaction slices", count(lambda e: e["ph"] == "X" and e.get("cat") == "txn"), 2 * len(txns))
check("counters", count(lambda e: e["ph"] == "C"), len(table["link_counters"]))
launches = table["launches"]
assert launches and all(l["start"] != "" for l in launches), "launches without a start"
check("launch slices", count(lambda e: e["ph"] == "X" and e.get("cat") == "launch"), len(launches))
# Each transaction: a flow start on its source's track at inject, the end on its destination's at arrive.
starts = {e["id"]: e for e in ev if e["ph"] == "s"}
ends = {e["id"]: e for e in ev if e["ph"] == "f"}
check("flow starts", len(starts), len(txns))
check("flow ends", len(ends), len(txns))
us = 1e6 / float(d["otherData"]["clock_hz"])
for t in txns:
    i = int(t["id"])
    s, f = starts[i], ends[i]
    assert s["tid"] == int(t["src"]) and f["tid"] == int(t["dst"]), f"transaction {i}: flow on the wrong tracks"
    assert abs(s["ts"] - float(t["inject"]) * us) < 1e-6 and abs(f["ts"] - float(t["arrive"]) * us) < 1e-6, \
        f"transaction {i}: flow at the wrong times"
    assert f.get("bp") == "e", "a flow end must bind to its enclosing slice"
print("trace_export.sh: ok,", len(x), "slices,", len(names), "tracks,", len(txns), "flows")
PY
