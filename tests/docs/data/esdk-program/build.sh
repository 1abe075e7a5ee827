#!/bin/sh
# An eSDK program's own build script, as on a Parallella: e-gcc for the
# device program, the host cross compiler against e-hal for the host program
# (tests/esdk/mailbox_*). docs_check.sh builds it where the docs say
# `./build.sh` for "your own eSDK program" (after `. build/esdk/setup.sh`).
set -e
ESDK="${EPIPHANY_HOME:?source build/esdk/setup.sh first}"
mkdir -p Debug
e-gcc -O2 -T "$ESDK/bsps/current/fast.ldf" ../../../esdk/mailbox_dev.c -o Debug/e_prog.elf -le-lib
arm-linux-gnueabihf-gcc -O2 ../../../esdk/mailbox_host.c -o Debug/host.elf \
  -I "$ESDK/tools/host/include" -L "$ESDK/tools/host/lib" -le-hal -le-loader
