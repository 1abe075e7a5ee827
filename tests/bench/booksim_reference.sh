#!/bin/sh
# Regenerates a BookSim2 reference latency curve for hopsim's comparison
# (docs/traffic.md, "Against a flit-level simulator").
#   tests/bench/booksim_reference.sh BOOKSIM CONFIG OUT.csv [LOADS...] [-- key=value ...]
# BOOKSIM: a built BookSim2 binary (github.com/booksim/booksim2, src/booksim).
# Runs BOOKSIM CONFIG injection_rate=L for every load and writes
# offered,accepted,packet_latency,network_latency,hops,host_seconds,packets
# (latencies in cycles; packets = accepted x nodes x simulated cycles).
set -eu
[ $# -ge 3 ] || { echo "usage: $0 BOOKSIM CONFIG OUT.csv [LOADS...] [-- key=value ...]" >&2; exit 2; }
bs=$1 cfg=$2 out=$3; shift 3
loads="" extra=""
while [ $# -gt 0 ]; do
  if [ "$1" = "--" ]; then shift; extra="$*"; break; fi
  loads="$loads $1"; shift
done
[ -n "$loads" ] || loads="0.02 0.04 0.06 0.08 0.10 0.12 0.14 0.16 0.18 0.20 0.22 0.24 0.26 0.28 0.30 0.32 0.34 0.36"
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
echo "offered,accepted,packet_latency,network_latency,hops,host_seconds,simulated_cycles" > "$out.part"
for l in $loads; do
  t0=$(date +%s.%N)
  # shellcheck disable=SC2086
  "$bs" "$cfg" injection_rate="$l" $extra > "$tmp" 2>&1 || true
  t1=$(date +%s.%N)
  # The final "Overall" averages; a run that did not converge (saturated) has none.
  awk -v l="$l" -v s="$(echo "$t1 - $t0" | bc)" '
    /^Packet latency average/ { pl=$5 }
    /^Network latency average/ { nl=$5 }
    /^Accepted packet rate average/ { ac=$6 }
    /^Hops average/ { h=$4 }
    /Time taken is/ { c=$4 }
    /Simulation unstable/ { bad=1 }
    END { if (bad || pl == "") printf "%s,,,,,%.3f,\n", l, s; else printf "%s,%s,%s,%s,%s,%.3f,%s\n", l, ac, pl, nl, h, s, c }' "$tmp" >> "$out.part"
  tail -1 "$out.part" >&2
done
mv "$out.part" "$out"
