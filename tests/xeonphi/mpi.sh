#!/usr/bin/env bash
# benchmark_ham_offload over --ham-mode mpi (Open MPI, two ranks):
#   mpi.sh MPIRUN BENCHMARK WORKDIR
# - the run exits 0 (the benchmark's call-mul data check passed) and prints
#   the original's layout with the '#' lines and the header;
# - without mpirun, --ham-mode mpi exits 2 and says to use mpirun -np N+1.
set -u
mpirun="$1" bench="$2" work="$3"
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
fail() { echo "mpi.sh: FAILED: $*"; exit 1; }

if [ -n "$mpirun" ]; then
  timeout 50 "$mpirun" --oversubscribe -np 2 "$bench" -c -m -i -o -s 65536 -r 20 --ham-mode mpi >mpi.txt 2>err.txt
  rc=$?
  [ $rc -eq 0 ] || { cat mpi.txt err.txt; fail "mpirun run exited $rc"; }
  grep -q "data check failed" mpi.txt err.txt && fail "a data check failed"
  grep -q "^# Command line was: " mpi.txt || fail "no command line comment"
  grep -q "^# HAM_MESSAGE_SIZE             4096$" mpi.txt || fail "no message size line"
  grep -q "^# HOPSIM_HAM_MODE              mpi (targets: ranks 1..1 of 2" mpi.txt || fail "the run does not say it is mpi"
  printf 'name\taverage\tmedian\tmin\tmax\tvariance\tstd_error\trelative_std_error\tconf95_error\trelative_conf95_error\tcount\n' >hdr.txt
  grep -qxF -f hdr.txt mpi.txt || fail "no header in the original layout"
  for r in call call-mul; do
    grep -qP "^$r:\t([0-9.]+e[+-][0-9]+\t){9}2\.0+e\+01$" mpi.txt || fail "$r row is not 9 values + count 20"
  done
  for r in copy-in copy-out; do
    grep -qP "^$r:\t([0-9.]+e[+-][0-9]+\t){10}65536$" mpi.txt || fail "$r row is not 10 values + data_size 65536"
  done
  [ "$(grep -c '^HAM-Offload' mpi.txt)" -eq 4 ] || fail "not four result blocks"
  echo "mpi.sh: $(awk -F'\t' '$1=="call:" {print "call average " $2 " ns"}' mpi.txt)"
fi

env -u OMPI_COMM_WORLD_SIZE "$bench" -c -r 1 --ham-mode mpi >bad.txt 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "mpirun -np N+1" bad.txt || { cat bad.txt; fail "mpi mode without mpirun: rc $rc"; }
echo "mpi.sh: ok"
