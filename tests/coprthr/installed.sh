#!/usr/bin/env bash
# Installs hopsim into a scratch prefix and builds the stdcl test program
# with the installed tree only (share/hopsim/esdk: stdcl.h, clcc, -lstdcl
# -locl), then runs a launch and a run-time compilation (clopen finds the
# installed clcc) natively and simulated.
#   installed.sh BUILD_DIR SOURCE_DIR WORKDIR
set -u
build="$1" src="$2" work="$3"
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
cmake --install "$build" --prefix "$work/prefix" >install.log 2>&1 || { cat install.log; exit 1; }
esdk="$work/prefix/share/hopsim/esdk"
for f in tools/e-gnu/bin/clcc tools/host/include/stdcl.h tools/host/lib/libstdcl.so tools/host/lib/libocl.so \
         tools/e-gnu/epiphany-elf/include/hopsim/ocl_kernel.h; do
  [[ -e "$esdk/$f" ]] || { echo "installed.sh: FAILED: share/hopsim/esdk/$f not installed"; exit 1; }
done
# Nothing from the build tree may be used.
unset EPIPHANY_HOME LD_LIBRARY_PATH
# shellcheck source=/dev/null
. "$esdk/setup.sh"
[[ "$(command -v clcc)" == "$esdk/tools/e-gnu/bin/clcc" ]] || { echo "installed.sh: FAILED: clcc not on PATH"; exit 1; }
make -s -f "$src/tests/coprthr/Makefile" SRC="$src/tests/coprthr" CC=arm-linux-gnueabihf-gcc stdcl_host > build.log 2>&1 ||
  { echo "installed.sh: FAILED: the build"; cat build.log; exit 1; }
ldd stdcl_host | grep -q "libe-hal.so => $esdk/tools/host/lib/libe-hal.so" ||
  { echo "installed.sh: FAILED: libe-hal.so is not the installed one"; ldd stdcl_host; exit 1; }
for mode in native sim; do
  for run in "items 1024 16" "jit $src/tests/coprthr/coef.cl"; do
    # shellcheck disable=SC2086
    HOPSIM_MODE=$mode ./stdcl_host $run > out 2> err && grep -q "PASSED" out ||
      { echo "installed.sh: FAILED ($mode, $run):"; cat out err; exit 1; }
  done
done
echo "installed.sh: ok"
