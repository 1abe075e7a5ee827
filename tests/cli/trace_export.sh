#!/usr/bin/env bash
# A simulated run with --trace, then trace stats and the Perfetto and CSV
# exports: valid trace-event JSON with a track per PE and per link.
#   trace_export.sh HOPSIM SCENARIO WORKDIR
set -u
hopsim="$1" scenario="$2" work="$3"
expect="$(dirname "$0")/expect.sh"
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
bash "$expect" --rc 0 --has "trace: run.db" -- "$hopsim" run "$scenario" --mode sim --set kernel.args.repeat=2 \
  --set kernel.args.n_max=2 --out out --trace run.db --trace-detail hops || exit 1
bash "$expect" --rc 0 --has "complete" --has "hottest links" --has "eject 0" -- "$hopsim" trace stats run.db || exit 1
bash "$expect" --rc 0 --has "wrote run.json" -- "$hopsim" trace export run.db --perfetto run.json || exit 1
bash "$expect" --rc 0 -- "$hopsim" trace export run.db --csv links --output links.csv || exit 1
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
print("trace_export.sh: ok,", len(x), "slices,", len(names), "tracks")
PY
