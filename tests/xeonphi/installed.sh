#!/usr/bin/env bash
# The installed HAM runtime: install hopsim into a scratch prefix, build
# docs/example-ham with find_package(hopsim) (hopsim::ham) and with the
# installed hopsim-c++ alone, and kernels/xeonphi/programs/ham_features with
# the wrapper; run them natively and simulated with two targets, and under
# mpirun -np 3 (MPIRUN empty: skipped).
#   installed.sh BUILD_DIR SOURCE_DIR MPIRUN WORKDIR
set -u
build="$1" src="$2" mpirun="$3" work="$4"
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
fail() { echo "installed.sh: FAILED: $*"; exit 1; }
cmake --install "$build" --prefix "$work/prefix" >install.log 2>&1 || { cat install.log; fail "install"; }
prefix="$work/prefix"
for f in bin/hopsim-c++ lib/libhopsim-ham.so include/hopsim/ham-api/ham/offload.hpp \
         include/hopsim/ham-api/ham/offload/main_explicit.hpp lib/cmake/hopsim/hopsimConfig.cmake; do
  [[ -e "$prefix/$f" ]] || fail "$f not installed"
done
cmake -S "$src/docs/example-ham" -B ex -DCMAKE_PREFIX_PATH="$prefix" >configure.log 2>&1 || { cat configure.log; fail "configure"; }
cmake --build ex >build.log 2>&1 || { cat build.log; fail "cmake build"; }
"$prefix/bin/hopsim-c++" -O2 -o axpy-wrapper "$src/docs/example-ham/axpy.cpp" || fail "hopsim-c++ axpy"
"$prefix/bin/hopsim-c++" -O2 -o features "$src/kernels/xeonphi/programs/ham_features.cpp" || fail "hopsim-c++ ham_features"
"$prefix/bin/hopsim-c++" --show -o x x.cpp | grep -q -- "-I$prefix/include/hopsim/ham-api .*-lhopsim-ham" ||
  fail "hopsim-c++ --show does not name the installed headers and runtime"
"$prefix/bin/hopsim-c++" >none.out 2>&1 && fail "hopsim-c++ without arguments succeeded"
grep -q "nothing to compile" none.out || fail "hopsim-c++ without arguments: $(cat none.out)"

check() {  # name text command...
  local name="$1" text="$2"
  shift 2
  timeout 60 "$@" >"$name.out" 2>&1 || { cat "$name.out"; fail "$name failed"; }
  grep -qF -- "$text" "$name.out" || { cat "$name.out"; fail "$name: no '$text'"; }
  echo "installed.sh: $name ok"
}
for p in ex/axpy ./axpy-wrapper; do
  n=$(basename "$p")
  check "$n-native" "target 2: ok" "$p" --ham-targets 2
  check "$n-sim" "target 2: ok" "$p" --ham-mode sim --ham-targets 2
done
check features-native "PASS: 0 failure(s)" ./features --ham-targets 2
check features-sim "PASS: 0 failure(s)" ./features --ham-mode sim --ham-targets 2
if [ -n "$mpirun" ]; then
  check axpy-mpi "target 2 (MPI rank 2 on" "$mpirun" --oversubscribe -np 3 ex/axpy --ham-mode mpi
  check features-mpi "PASS: 0 failure(s)" "$mpirun" --oversubscribe -np 3 ./features --ham-mode mpi
fi
grep -q "WRONG" ./*.out && fail "a data check failed"
echo "installed.sh: ok"
