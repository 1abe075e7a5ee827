#!/usr/bin/env bash
# A simulated run with --trace, exported for Perfetto as protobuf (.perfetto-trace and .pftrace)
# and as JSON: the protobuf is non-empty, smaller than the JSON, and a Trace of packets with as
# many events as the trace has rows (a begin and end per PE state, hop and launch, two slices and
# one flow per transaction, three counter values per link bucket).
#   trace_export_proto.sh HOPSIM SCENARIO WORKDIR
set -u
hopsim="$1" scenario="$2" work="$3"
expect="$(dirname "$0")/expect.sh"
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
bash "$expect" --rc 0 --has "trace: run.db" -- "$hopsim" run "$scenario" --mode sim --set kernel.args.repeat=2 \
  --set kernel.args.n_max=2 --out out --trace run.db --trace-detail hops || exit 1
bash "$expect" --rc 0 --has "wrote run.perfetto-trace" -- \
  "$hopsim" trace export run.db --perfetto run.perfetto-trace || exit 1
bash "$expect" --rc 0 --has "wrote run.pftrace" -- "$hopsim" trace export run.db --perfetto run.pftrace || exit 1
bash "$expect" --rc 0 -- "$hopsim" trace export run.db --perfetto run.json || exit 1
for t in transactions hops pe_states link_counters launches; do
  bash "$expect" --rc 0 -- "$hopsim" trace export run.db --csv $t --output $t.csv || exit 1
done
cmp -s run.perfetto-trace run.pftrace || { echo "the two protobuf extensions differ"; exit 1; }
python3 - <<'PY' || exit 1
import csv, os, struct
pb, js = os.path.getsize("run.perfetto-trace"), os.path.getsize("run.json")
assert 0 < pb < js, f"protobuf {pb} bytes, JSON {js} bytes"
data = open("run.perfetto-trace", "rb").read()
def fields(b):
    i = 0
    while i < len(b):
        key, i = varint(b, i)
        num, wire = key >> 3, key & 7
        if wire == 0: v, i = varint(b, i)
        elif wire == 1: v, i = b[i:i + 8], i + 8
        elif wire == 2:
            n, i = varint(b, i)
            v, i = b[i:i + n], i + n
        else: raise AssertionError(f"wire type {wire}")
        yield num, v
def varint(b, i):
    v = s = 0
    while True:
        c = b[i]; i += 1
        v |= (c & 0x7f) << s; s += 7
        if c < 0x80: return v, i
begins, ends, counters, flows, ends_of_flows, described = {}, 0, 0, set(), set(), set()
for num, packet in fields(data):
    assert num == 1, "not a Trace"
    p = dict(fields(packet))
    assert p.get(10) == 1, "packet off sequence 1"
    if 60 in p: described.add(dict(fields(p[60]))[1])
    if 11 in p:
        ev = list(fields(p[11]))
        e = dict(ev)
        assert e[11] in described, "event on an undescribed track"
        if e[9] == 1: begins[e[22].decode()] = begins.get(e[22].decode(), 0) + 1
        if e[9] == 2: ends += 1
        if e[9] == 4: counters += 1
        flows |= {v for n, v in ev if n == 47}
        ends_of_flows |= {v for n, v in ev if n == 48}
rows = {t: list(csv.DictReader(open(t + ".csv"))) for t in
        ("transactions", "hops", "pe_states", "link_counters", "launches")}
want = {"pe": len(rows["pe_states"]), "hop": len(rows["hops"]), "txn": 2 * len(rows["transactions"]),
        "launch": sum(1 for l in rows["launches"] if l["start"] != "")}
assert begins == want, f"slices {begins}, the trace has {want}"
assert ends == sum(want.values()), f"{ends} slice ends"
assert counters == 3 * len(rows["link_counters"]), f"{counters} counter values"
assert len(flows) == len(rows["transactions"]) and flows == ends_of_flows, "flows"
print(f"trace_export_proto.sh: ok, protobuf {pb} bytes, JSON {js} bytes, {sum(want.values())} slices")
PY
