#!/usr/bin/env bash
# Install hopsim into a scratch prefix, build docs/example-kernel against the
# installed package (find_package(hopsim) + hopsim_add_kernel) and with the
# installed wrapper alone, and run it with the installed hopsim in both modes.
#   out_of_tree.sh HOPSIM PASSING_SCENARIO WORKDIR BUILD_DIR SOURCE_DIR
set -u
work="$3" build="$4" src="$5"
expect="$(dirname "$0")/expect.sh"
example="$src/docs/example-kernel"
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
cmake --install "$build" --prefix "$work/prefix" >install.log 2>&1 || { cat install.log; exit 1; }
prefix="$work/prefix"
for f in bin/hopsim bin/hopsim-cc lib/cmake/hopsim/hopsimConfig.cmake include/hopsim/device-api/e_lib.h \
         share/hopsim/presets/e16g301.json lib/hopsim/kernels/passing-raw.hopsim.so; do
  [[ -e "$prefix/$f" ]] || { echo "out_of_tree.sh: FAILED: $f not installed"; exit 1; }
done
cmake -S "$example" -B ex -DCMAKE_PREFIX_PATH="$prefix" >configure.log 2>&1 || { cat configure.log; exit 1; }
cmake --build ex >build.log 2>&1 || { cat build.log; exit 1; }
"$prefix/bin/hopsim-cc" -o wrapper.hopsim.so "$example/hello.cl" "$example/host.cpp" || exit 1
cp "$example/hello.json" .
for lib in ex/hello-mesh.hopsim.so wrapper.hopsim.so; do
  bash "$expect" --rc 0 --has "identical data" --has "hello " --lacks "FAIL" -- \
    "$prefix/bin/hopsim" run hello.json --set "kernel.library=\"$lib\"" --out "out-$(basename "$lib")" || exit 1
done
# The installed hopsim also finds its own shipped kernel library by name.
bash "$expect" --rc 0 --has "identical data" -- "$prefix/bin/hopsim" run "$prefix/share/hopsim/kernels/epiphany/raw/passing-raw.json" \
  --set kernel.args.repeat=2 --set kernel.args.n_max=1 --out out-raw || exit 1
# A shipped scenario named as in the source tree is found in the install's share/hopsim.
bash "$expect" --rc 0 --has "identical data" --has "$prefix/share/hopsim/kernels/epiphany/raw/passing-raw.json" -- \
  "$prefix/bin/hopsim" run kernels/epiphany/raw/passing-raw.json --set kernel.args.repeat=2 --set kernel.args.n_max=1 \
  --out out-share || exit 1
for f in share/hopsim/kernels/bgq/halo.json share/hopsim/kernels/host/ring.json share/hopsim/kernels/xeonphi/offload-call.json \
         share/hopsim/models/network/examples/sweep-torus.json; do
  [[ -e "$prefix/$f" ]] || { echo "out_of_tree.sh: FAILED: $f not installed"; exit 1; }
done
echo "out_of_tree.sh: ok"
