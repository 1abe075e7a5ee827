#!/usr/bin/env bash
# Public BG/Q SPI programs, unchanged, built with hopsim-mpicc and run in
# both modes through `hopsim bgq exec`; prints a table.
#
#   tests/external/bgq_programs.sh QSPI_CHECKOUT BUILD_DIR [WORK_DIR]
#
# QSPI_CHECKOUT: a checkout of urbach/Qspi (fetched outside this
# repository). BUILD_DIR: hopsim's build folder (build). Each program is
# built in WORK_DIR (default /tmp/hopsim-bgq-external) with its own
# sources; "builds" is hopsim-mpicc's exit status, the modes are the exit
# statuses of the runs, "same" says whether both printed the same lines.
set -uo pipefail
qspi=${1:?usage: $0 QSPI_CHECKOUT BUILD_DIR [WORK_DIR]}
build=$(cd "${2:?usage: $0 QSPI_CHECKOUT BUILD_DIR [WORK_DIR]}" && pwd)
work=${3:-/tmp/hopsim-bgq-external}
mpicc=$build/bgq/bin/hopsim-mpicc
hopsim=$build/sim/cli/hopsim
mkdir -p "$work"
printf '%-24s %-7s %-8s %-8s %-6s %s\n' program builds native sim same "simulated cycles"
row() {  # name build-status dir
  local name=$1 built=$2 dir=$3
  if [ "$built" != 0 ]; then printf '%-24s %-7s\n' "$name" "no($built)"; return; fi
  OMP_NUM_THREADS=1 "$hopsim" bgq exec --out "$dir/out" "$dir/prog" > "$dir/exec.txt" 2>&1
  local nat sim same cycles
  nat=$(awk '$1 == "native" {print $2}' "$dir/exec.txt")
  sim=$(awk '$1 == "sim" {print $2}' "$dir/exec.txt")
  cycles=$(awk '$1 == "sim" {print $4}' "$dir/exec.txt")
  if grep -q "printed the same" "$dir/exec.txt"; then same=yes; else same=no; fi
  printf '%-24s %-7s %-8s %-8s %-6s %s\n' "$name" yes "${nat:--}" "${sim:--}" "$same" "${cycles:--}"
}
d=$work/qspi-DirectPut
mkdir -p "$d"
( cd "$qspi" && "$mpicc" -O3 -qsmp=omp DirectPut.c -o "$d/prog" ) > "$d/build.txt" 2>&1
row "Qspi DirectPut.c" $? "$d"
