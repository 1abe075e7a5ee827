#!/bin/sh
# The MPI halo exchange (kernels/bgq/mpi_halo.c) simulated side by side by
# hopsim (MPI over the modelled BG/Q messaging unit and torus) and by
# SimGrid's SMPI (Debian's libsimgrid-dev: smpicc, smpirun) on the same
# 5-D torus, one after the other on this machine (docs/benchmarks.md).
#   tests/bench/smpi_halo.sh [-b BUILD] [--halo-only] [A B C D E [ITERATIONS [SIZE]]]
# Defaults: build, torus 8 8 8 4 2 (4096 ranks), 1 iteration, 4096 bytes per
# neighbour; --halo-only runs the exchange alone (mpi_halo --halo-only: no
# ping-pong, no collectives). Prints, per simulator, the host wall and CPU seconds, peak memory and
# the program's own timings (stderr lines; SMPI's in cycles of 1.6 GHz
# taken from MPI_Wtime), and checks that both print the same data lines.
#
# SMPI's platform: a TORUS cluster of the same extents, one rank per node,
# numbered as hopsim numbers the nodes (E fastest: SimGrid's first
# dimension varies fastest, so the extents are given as E,D,C,B,A),
# links of 2 GB/s and 40 ns (docs/bgq.md's raw link rate and per-hop
# latency), 12.8 Gflop/s per rank (one A2 core's 4-wide FMA at 1.6 GHz);
# SMPI's own network model (`network/model:SMPI`); the program's own
# computation costs no simulated time (`smpi/simulate-computation:no`, as
# hopsim's default compute model charges none), and MPICH's algorithms for
# the program's short collectives (the BG/Q's MPI is MPICH's): dissemination
# barrier (`ompi_bruck`), recursive-doubling allreduce (`rdb`), binomial
# reduce and broadcast. These are named one by one: SMPI's
# `smpi/coll-selector:mpich` first builds SMP-aware communicators (each
# node's leaders) on the first collective, which with one rank per node
# costs about 1 us of simulated time per rank and host time quadratic in
# the ranks (80 s at 1024 ranks, hours at 4096); SMPI's default reduce is
# linear in the ranks.
set -eu
build=build
if [ "${1:-}" = "-b" ]; then build=$2; shift 2; fi
only=""
if [ "${1:-}" = "--halo-only" ]; then only=--halo-only; shift; fi
case "${1:-}" in -h | --help)
  awk 'NR > 1 { if (!/^#/) exit; sub(/^# ?/, ""); print }' "$0"
  exit 0
  ;;
esac
a=${1:-8} b=${2:-8} c=${3:-8} d=${4:-4} e=${5:-2}
iterations=${6:-1} size=${7:-4096}
n=$((a * b * c * d * e))
here=$(cd "$(dirname "$0")/../.." && pwd)
prog="$build/kernels/bgq/mpi_halo"
[ -x "$prog" ] || { echo "smpi_halo.sh: $prog not built (cmake --build $build --target mpi_halo)" >&2; exit 2; }
command -v smpicc >/dev/null && command -v smpirun >/dev/null ||
  { echo "smpi_halo.sh: smpicc/smpirun not found (apt-get install libsimgrid-dev)" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/shim/hwi/include/bqc"
# GetTimeBase (the A2 time base, 1.6 GHz) on SMPI's simulated clock.
cat >"$work/shim/hwi/include/bqc/A2_inlines.h" <<'EOF'
#include <mpi.h>
#include <stdint.h>
static inline uint64_t GetTimeBase(void) { return (uint64_t)(MPI_Wtime() * 1.6e9); }
EOF
smpicc -O2 -I"$work/shim" "$here/kernels/bgq/mpi_halo.c" -o "$work/halo_smpi"
cat >"$work/platform.xml" <<EOF
<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <zone id="world" routing="Full">
    <cluster id="bgq" prefix="node-" suffix="" radical="0-$((n - 1))" speed="12.8Gf"
             bw="2GBps" lat="40ns" topology="TORUS" topo_parameters="$e,$d,$c,$b,$a"/>
  </zone>
</platform>
EOF
i=0
while [ $i -lt $n ]; do echo "node-$i"; i=$((i + 1)); done >"$work/hosts"
printf '{"machine": {"preset": "bgq", "torus_a": %d, "torus_b": %d, "torus_c": %d, "torus_d": %d, "torus_e": %d}}\n' \
  "$a" "$b" "$c" "$d" "$e" >"$work/scenario.json"

run() { # NAME COMMAND...: runs it, keeping stdout, stderr and time's line
  name=$1
  shift
  echo "$name: $n ranks on ${a}x${b}x${c}x${d}x${e}, $iterations iteration(s) of $size bytes ..." >&2
  /usr/bin/time -f "%e %M %U %S" -o "$work/$name.time" "$@" >"$work/$name.out" 2>"$work/$name.err" ||
    { echo "smpi_halo.sh: $name failed:" >&2; tail -5 "$work/$name.err" >&2; exit 1; }
}
run hopsim env HOPSIM_MODE=sim HOPSIM_SCENARIO="$work/scenario.json" "$prog" $only "$iterations" "$size"
run smpi smpirun -np "$n" -platform "$work/platform.xml" -hostfile "$work/hosts" \
  --cfg=smpi/simulate-computation:no \
  --cfg=smpi/barrier:ompi_bruck --cfg=smpi/allreduce:rdb --cfg=smpi/reduce:binomial --cfg=smpi/bcast:binomial_tree \
  --log=root.thres:warning "$work/halo_smpi" $only "$iterations" "$size"

# The data lines in the same order (ranks print in their own order).
sort "$work/hopsim.out" >"$work/hopsim.sorted"
sort "$work/smpi.out" >"$work/smpi.sorted"
if ! cmp -s "$work/hopsim.sorted" "$work/smpi.sorted"; then
  echo "smpi_halo.sh: the two simulators' data lines differ:" >&2
  diff "$work/hopsim.sorted" "$work/smpi.sorted" >&2 || true
  exit 1
fi
echo "data: the same $(wc -l <"$work/hopsim.out") lines from both ($(grep -c ' 0 wrong\| 0 ranks wrong' "$work/hopsim.out") with nothing wrong)"
printf '%-8s %10s %10s %12s\n' simulator "wall s" "CPU s" "peak MiB"
for s in hopsim smpi; do
  read -r sec kb user sys <"$work/$s.time"
  printf '%-8s %10s %10s %12d\n' "$s" "$sec" "$(echo "$user + $sys" | bc)" $((kb / 1024))
done
for s in hopsim smpi; do
  echo "--- $s (cycles of 1.6 GHz)"
  grep -i "cycles" "$work/$s.err" || true
  echo
done
