#!/usr/bin/env bash
# Installs hopsim into a scratch prefix and builds an eSDK program as a
# Parallella build script does, with the installed tree only: source
# share/hopsim/esdk/setup.sh, the host side with arm-linux-gnueabihf-gcc
# -le-hal -le-loader, the device side with e-gcc -T fast.ldf -le-lib; then
# runs it natively and simulated.
#   installed.sh BUILD_DIR SOURCE_DIR WORKDIR
set -u
build="$1" src="$2" work="$3"
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
cmake --install "$build" --prefix "$work/prefix" >install.log 2>&1 || { cat install.log; exit 1; }
esdk="$work/prefix/share/hopsim/esdk"
for f in setup.sh tools/e-gnu/bin/e-gcc tools/e-gnu/bin/arm-linux-gnueabihf-gcc tools/host/lib/libe-hal.so \
         tools/host/lib/libe-loader.so tools/host/include/e-hal.h tools/e-gnu/epiphany-elf/include/e_lib.h \
         bsps/current/fast.ldf; do
  [[ -e "$esdk/$f" ]] || { echo "installed.sh: FAILED: share/hopsim/esdk/$f not installed"; exit 1; }
done
# Nothing from the build tree may be used.
unset EPIPHANY_HOME LD_LIBRARY_PATH
# shellcheck source=/dev/null
. "$esdk/setup.sh"
[[ "$(command -v e-gcc)" == "$esdk/tools/e-gnu/bin/e-gcc" ]] || { echo "installed.sh: FAILED: e-gcc not on PATH"; exit 1; }
arm-linux-gnueabihf-gcc "$src/tests/esdk/mailbox_host.c" -o mailbox.elf -I "$EPIPHANY_HOME/tools/host/include" \
  -L "$EPIPHANY_HOME/tools/host/lib" -le-hal -le-loader -lpthread || exit 1
e-gcc -O2 -T "$EPIPHANY_HOME/bsps/current/fast.ldf" "$src/tests/esdk/mailbox_dev.c" -o mailbox_dev.elf -le-lib || exit 1
for lib in libe-hal.so libe-loader.so; do
  ldd mailbox.elf | grep -q "$lib => $esdk/tools/host/lib/$lib" || { echo "installed.sh: FAILED: $lib is not the installed one"; ldd mailbox.elf; exit 1; }
done
for mode in native sim; do
  HOPSIM_MODE=$mode ./mailbox.elf mailbox_dev.elf > $mode.out 2> $mode.err || { echo "installed.sh: FAILED ($mode):"; cat $mode.out $mode.err; exit 1; }
  grep -q "mailbox: PASSED" $mode.out || { echo "installed.sh: FAILED ($mode):"; cat $mode.out; exit 1; }
done
cmp -s native.out sim.out || { echo "installed.sh: FAILED: native and simulated output differ"; diff native.out sim.out; exit 1; }
echo "installed.sh: ok"
