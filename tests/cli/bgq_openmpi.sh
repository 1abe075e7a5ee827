#!/bin/sh
# Native BG/Q runs over Open MPI: programs built with hopsim-mpicc --openmpi
# run under mpirun as 4 processes (oversubscribed, as root where needed) and
# must print what the simulated run of the same program on a 4-node torus
# prints; then the errors a user meets there.
#
#   bgq_openmpi.sh HOPSIM PROGRAMS_DIR CASE
#
# CASE: spi (SPI direct puts, memory FIFOs, remote gets, GI barrier), own_main
# (SPI puts with MPI barriers; odd ranks exit() before MPI_Finalize), mpi
# (MPI calls going to Open MPI itself), threads (a rank's threads calling MPI
# at MPI_THREAD_MULTIPLE, the level the program asks for), tcp (spi over the TCP transport with
# Open MPI's two-sided one-sided emulation, as across machines), collective
# (class-route descriptors refused), torus (a scenario whose torus does not
# fit the job refused).
set -eu
hopsim=$1 progs=$2 case=$3
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
mpirun=${MPIRUN:-mpirun}
work=$(mktemp -d "${TMPDIR:-/tmp}/hopsim-ompi.XXXXXX")
trap 'rm -rf "$work"' EXIT

# same PROGRAM ARGS...: the simulated run's lines and the Open MPI run's, sorted, must be equal.
same() {
  prog=$1
  shift
  "$hopsim" bgq exec --torus 2x2x1x1x1 --mode sim --out "$work/sim-$prog" "$progs/$prog" "$@" >/dev/null
  sort "$work/sim-$prog/sim.stdout" >"$work/sim.sorted"
  rc=0
  HOPSIM_REPORT="$work/report.json" $mpirun -np 4 $MCA "$progs/${prog}_ompi" "$@" >"$work/ompi.out" 2>"$work/ompi.err" || rc=$?
  sort "$work/ompi.out" >"$work/ompi.sorted"
  grep '^hopsim' "$work/ompi.err" || true
  if [ $rc -ne 0 ]; then
    echo "$prog over Open MPI failed with exit status $rc:"
    tail -20 "$work/ompi.err"
    exit 1
  fi
  if cmp -s "$work/sim.sorted" "$work/ompi.sorted"; then
    echo "$prog: Open MPI and simulated runs printed the same $(wc -l <"$work/sim.sorted") lines"
    cat "$work/ompi.sorted"
  else
    echo "$prog: Open MPI and simulated runs printed DIFFERENT lines:"
    diff "$work/sim.sorted" "$work/ompi.sorted" || true
    exit 1
  fi
  tr -d ' \n' <"$work/report.json" | grep -o '"\(transport\|direct_puts\)":"[a-z-]*"' || { echo "no report"; exit 1; }
}

MCA=""
case $case in
  spi) same spi_paths 3 ;;
  own_main) same own_main 2 ;;
  mpi) same mpi_features ;;
  threads) same mpi_threads ;;
  tcp)
    MCA="--mca btl tcp,self --mca osc pt2pt"
    same spi_paths 5
    ;;
  messages)
    MCA="--mca btl_vader_single_copy_mechanism none"
    same own_main 2
    same spi_paths 7
    ;;
  collective)
    rc=0
    $mpirun -np 4 "$progs/collective_ompi" >/dev/null 2>"$work/err" || rc=$?
    echo "exit status $rc"
    grep '^hopsim' "$work/err" | sort -u
    ;;
  torus)
    printf '{"machine": {"preset": "bgq", "torus_a": 2, "torus_b": 2, "torus_c": 2}}\n' >"$work/scenario.json"
    rc=0
    HOPSIM_SCENARIO="$work/scenario.json" $mpirun -np 4 "$progs/spi_paths_ompi" >/dev/null 2>"$work/err" || rc=$?
    echo "exit status $rc"
    grep '^hopsim' "$work/err" | sort -u
    ;;
  *) echo "bgq_openmpi.sh: unknown case $case" >&2; exit 2 ;;
esac
