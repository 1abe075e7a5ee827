#!/usr/bin/env bash
# Public BG/Q SPI programs, unchanged, built with hopsim-mpicc and run in
# both modes through `hopsim bgq exec`; prints a table.
#
#   tests/external/bgq_programs.sh --build BUILD_DIR [--qspi QSPI_CHECKOUT]
#       [--driver DRIVER_CHECKOUT] [--work WORK_DIR] [--only NAME]
#
# QSPI_CHECKOUT: a checkout of urbach/Qspi (DirectPut.c). DRIVER_CHECKOUT:
# a checkout of the BG/Q driver (jedbrown/bgq-driver; spi/examples/mu:
# msg_pingpong.c, msg_alltoall.c, msg_collective.c with msg_common.c).
# Both are fetched outside this repository. BUILD_DIR: hopsim's build
# folder (build). Each program is built in WORK_DIR (default
# /tmp/hopsim-bgq-external) from its own sources. Columns: "builds" is
# hopsim-mpicc's status; "native"/"sim" the runs' exit statuses; "check"
# the program's own result check in both modes (its exit status, and for
# msg_collective no "Test failed" line); "same" whether both modes printed
# the same lines (programs that print times they measured differ there);
# then the simulated run's cycles and both runs' host seconds.
set -uo pipefail
usage() { sed -n '5,6p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
build="" qspi="" driver="" work=/tmp/hopsim-bgq-external only=""
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build=$2; shift 2 ;;
    --qspi) qspi=$2; shift 2 ;;
    --driver) driver=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    -h|--help) usage ;;
    *) echo "bgq_programs.sh: unknown argument $1" >&2; usage ;;
  esac
done
[ -n "$build" ] || usage
[ -n "$qspi$driver" ] || { echo "bgq_programs.sh: give --qspi and/or --driver" >&2; exit 2; }
build=$(cd "$build" && pwd)
mpicc=$build/bgq/bin/hopsim-mpicc
hopsim=$build/sim/cli/hopsim
mkdir -p "$work"
printf '%-22s %-7s %-7s %-7s %-6s %-5s %14s %8s %8s\n' program builds native sim check same "sim cycles" "sim s" "native s"
status=0
row() {  # name build-status dir check-pattern
  local name=$1 built=$2 dir=$3 bad=$4
  if [ "$built" != 0 ]; then printf '%-22s %-7s\n' "$name" "no($built)"; status=1; return; fi
  OMP_NUM_THREADS=1 "$hopsim" bgq exec --out "$dir/out" "$dir/prog" > "$dir/exec.txt" 2>&1
  local nat sim same cycles simsec natsec check=pass
  nat=$(awk '$1 == "native" {print $2}' "$dir/exec.txt")
  sim=$(awk '$1 == "sim" {print $2}' "$dir/exec.txt")
  cycles=$(awk '$1 == "sim" {print $4}' "$dir/exec.txt")
  simsec=$(awk '$1 == "sim" {print $5}' "$dir/exec.txt")
  natsec=$(awk '$1 == "native" {print $5}' "$dir/exec.txt")
  if grep -q "printed the same" "$dir/exec.txt"; then same=yes; else same=no; fi
  [ "${nat:-x}" = 0 ] && [ "${sim:-x}" = 0 ] || check=FAIL
  if [ -n "$bad" ] && grep -q "$bad" "$dir/out/native.stdout" "$dir/out/sim.stdout" 2> /dev/null; then check=FAIL; fi
  [ $check = pass ] || status=1
  printf '%-22s %-7s %-7s %-7s %-6s %-5s %14s %8s %8s\n' "$name" yes "${nat:--}" "${sim:--}" $check $same \
    "${cycles:--}" "${simsec:--}" "${natsec:--}"
}
want() { [ -z "$only" ] || [ "$only" = "$1" ]; }
if [ -n "$qspi" ] && want DirectPut; then
  d=$work/qspi-DirectPut
  mkdir -p "$d"
  ( cd "$qspi" && "$mpicc" -O3 -qsmp=omp DirectPut.c -o "$d/prog" ) > "$d/build.txt" 2>&1
  row "Qspi DirectPut.c" $? "$d" ""
fi
if [ -n "$driver" ]; then
  mu=$driver/spi/examples/mu
  for p in msg_pingpong msg_alltoall msg_collective; do
    want $p || continue
    d=$work/driver-$p
    mkdir -p "$d"
    ( cd "$mu" && "$mpicc" -O3 -g $p.c msg_common.c -o "$d/prog" ) > "$d/build.txt" 2>&1
    row "IBM $p.c" $? "$d" "Test failed"
  done
fi
exit $status
