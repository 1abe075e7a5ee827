#!/usr/bin/env bash
# mpirun -np 2 hopsim sweep splits the points over two ranks and gathers the
# table on rank 0: it must equal the serial table.
#   sweep_mpi.sh HOPSIM SCENARIO WORKDIR SWEEPFILE
set -u
hopsim="$1" work="$3" sweep="$4"
expect="$(dirname "$0")/expect.sh"
command -v mpirun >/dev/null || { echo "sweep_mpi.sh: FAILED: mpirun not found (openmpi-bin)"; exit 1; }
# CI runs as root; a shared machine may have fewer cores than ranks.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
# Containers often forbid the cross-memory attach of the shared-memory transport.
export OMPI_MCA_btl_vader_single_copy_mechanism=none

bash "$expect" --dir "$work" --rc 0 --has "6 points, 6 rows" -- "$hopsim" sweep "$sweep" --out serial --progress lines || exit 1
cd "$work" || exit 1
bash "$expect" --rc 0 --has "6 points over 2 ranks, 3 on rank 0" --has "6 points, 6 rows" \
  -- mpirun --oversubscribe -np 2 "$hopsim" sweep "$sweep" --out mpi --progress lines || exit 1
if cmp serial/results.csv mpi/results.csv; then
  echo "sweep_mpi.sh: the 2-rank table equals the serial one"
else
  echo "sweep_mpi.sh: FAILED: tables differ"; diff serial/results.csv mpi/results.csv; exit 1
fi
