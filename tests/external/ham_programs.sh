#!/bin/bash
# Builds the public HAM-Offload programs (noma/ham: ham/src and examples)
# unmodified with hopsim-c++ and runs each natively, simulated and under
# mpirun; prints a table.
#
#   tests/external/ham_programs.sh CHECKOUT [HOPSIM] [PROGRAM...]
#
# CHECKOUT is a checkout of noma/ham (fetched outside this repository);
# HOPSIM is an install prefix (with bin/hopsim-c++) or hopsim's build
# directory (default: build). A program passes a mode when it exits 0 and
# prints no failure of its own checks. Targets: 2 (test_data_transfer
# copies between two targets), i.e. mpirun -np 3. Exit status: the number
# of programs that did not build or did not pass every mode.
set -u
checkout="${1:?usage: $0 CHECKOUT [HOPSIM] [PROGRAM...]}"
hopsim="${2:-build}"
shift $(( $# >= 2 ? 2 : 1 ))
[ -f "$checkout/ham/include/ham/offload.hpp" ] || { echo "$checkout: not a noma/ham checkout" >&2; exit 2; }
hopsim=$(cd "$hopsim" && pwd)
cxx="$hopsim/bin/hopsim-c++"
[ -x "$cxx" ] || cxx="$hopsim/hopsim-c++"
[ -x "$cxx" ] || { echo "$hopsim: no hopsim-c++ (an install prefix or a build directory)" >&2; exit 2; }
mpirun=$(command -v mpirun || true)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
scratch=$(mktemp -d "${TMPDIR:-/tmp}/hopsim-ham.XXXXXX")
limit="${HOPSIM_EXAMPLE_TIMEOUT:-120}"

# program source | what its output must not contain (its own failure report)
programs=(
  "examples/hello_world/hello_world.cpp|fail"
  "ham/src/inner_product.cpp|fail"
  "ham/src/test_argument_transfer.cpp|fail"
  "ham/src/test_data_transfer.cpp|Verified data? 0"
  "ham/src/test_multiple_targets.cpp|fail"
  "ham/src/test_polymorphism.cpp|Result: fail"
  "ham/src/ham_offload.cpp|fail"
  "ham/src/ham_offload_explicit.cpp|fail"
  "ham/src/active_msgs.cpp|fail"
)
[ $# -gt 0 ] && { sel=(); for e in "${programs[@]}"; do for p in "$@"; do [[ "$e" == *"/$p.cpp|"* ]] && sel+=("$e"); done; done; programs=("${sel[@]}"); }

run_one() {  # binary mode forbid -> PASS / FAIL(rc) / TIMEOUT
  local bin="$1" mode="$2" forbid="$3" out="$scratch/$(basename "$1").$2"
  if [ "$mode" = mpi ]; then
    [ -n "$mpirun" ] || { echo "no-mpirun"; return; }
    timeout "$limit" "$mpirun" --oversubscribe -np 3 "$bin" --ham-mode mpi >"$out" 2>&1
  else
    timeout "$limit" "$bin" --ham-mode "$mode" --ham-targets 2 >"$out" 2>&1
  fi
  local rc=$?
  if [ $rc -eq 0 ] && ! grep -qi -- "$forbid" "$out"; then echo PASS
  elif [ $rc -eq 124 ]; then echo TIMEOUT
  else echo "FAIL($rc)"; fi
}

failed=0
printf '%-28s %-8s %-9s %-9s %-9s\n' program builds native sim mpi
for entry in "${programs[@]}"; do
  IFS='|' read -r path forbid <<< "$entry"
  name=$(basename "$path" .cpp)
  bin="$scratch/$name"
  if "$cxx" -O2 -o "$bin" "$checkout/$path" >"$scratch/$name.build" 2>&1; then
    n=$(run_one "$bin" native "$forbid"); s=$(run_one "$bin" sim "$forbid"); m=$(run_one "$bin" mpi "$forbid")
    printf '%-28s %-8s %-9s %-9s %-9s\n' "$name" yes "$n" "$s" "$m"
    [ "$n" = PASS ] && [ "$s" = PASS ] && { [ "$m" = PASS ] || [ "$m" = no-mpirun ]; } || failed=$((failed + 1))
  else
    why=$(grep -m1 -o "fatal error: [^ ]*\|error: .*" "$scratch/$name.build" | head -1 | cut -c1-60)
    printf '%-28s %-8s %s\n' "$name" no "$why"
    failed=$((failed + 1))
  fi
done
echo "outputs in $scratch"
exit $failed
