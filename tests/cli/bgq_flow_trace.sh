#!/usr/bin/env bash
# A trace of the flow-controlled BG/Q torus (machine.torus_flow_control=1)
# holds every packet's links: the same packets, hops and bytes over all
# links as the link-calendar run of the same halo (both route minimally),
# each hop tied to its descriptor; the viewer's hop traffic comes from these.
#   bgq_flow_trace.sh HOPSIM SCENARIO WORKDIR
set -u
hopsim="$1" scenario="$2" work="$3"
expect="$(dirname "$0")/expect.sh"
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
args=(--set kernel.args.iterations=1 --set kernel.args.msg_size=4096 --mode sim --trace-detail hops)
bash "$expect" --rc 0 -- "$hopsim" run "$scenario" "${args[@]}" --trace cal.db --out cal || exit 1
bash "$expect" --rc 0 -- "$hopsim" run "$scenario" "${args[@]}" --set machine.torus_flow_control=1 --trace flow.db \
  --out flow || exit 1
totals() { "$hopsim" trace stats "$1" | sed -n 's/.* transactions, \(.*over all links\)$/\1/p'; }
cal="$(totals cal.db)" flow="$(totals flow.db)"
echo "link calendars: $cal"
echo "flow control:   $flow"
[[ "$cal" =~ ^[1-9][0-9]*\ hops\;\ [1-9] ]] || { echo "no hops in the link-calendar trace"; exit 1; }
[[ "$flow" == "$cal" ]] || { echo "the flow-controlled trace's hops differ from the link calendars'"; exit 1; }
echo "bgq_flow_trace.sh: ok"
