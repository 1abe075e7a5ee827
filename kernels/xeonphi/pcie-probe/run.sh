#!/bin/sh
# Measures a real PCIe accelerator (an NVIDIA GPU with CUDA) with pcie_probe,
# twice a minute apart (the noise floor), and records the machine it ran on.
#
#   kernels/xeonphi/pcie-probe/run.sh OUTDIR [--max-bytes N]
#
# Writes OUTDIR/probe-1.csv and probe-2.csv (the measurements, for
# `hopsim import --format pcie` and `hopsim xeonphi pcie --against`),
# OUTDIR/machine.txt (GPU, PCIe link, CPU) and OUTDIR/build.log.
# Needs nvcc and a GPU; exits non-zero naming what is missing.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: run.sh OUTDIR [--max-bytes N]}
shift
mkdir -p "$out"
command -v nvcc >/dev/null || { echo "run.sh: nvcc not found: this needs the CUDA toolkit" >&2; exit 2; }
command -v nvidia-smi >/dev/null || { echo "run.sh: nvidia-smi not found: this needs an NVIDIA GPU" >&2; exit 2; }

bin=$(mktemp -d)/pcie_probe
echo "building $bin" >&2
nvcc -O2 -std=c++17 -arch=sm_90 -o "$bin" "$here/pcie_probe.cu" >"$out/build.log" 2>&1 ||
  nvcc -O2 -std=c++17 -o "$bin" "$here/pcie_probe.cu" >>"$out/build.log" 2>&1 ||
  { cat "$out/build.log" >&2; exit 1; }

{
  echo "## date"; date -u
  echo "## nvidia-smi"
  nvidia-smi --query-gpu=name,pci.bus_id,driver_version,pcie.link.gen.max,pcie.link.width.max,pcie.link.gen.current,pcie.link.width.current --format=csv
  echo "## nvidia-smi topo"; nvidia-smi topo -m 2>&1 || true
  echo "## cpu"; lscpu 2>&1 | grep -E 'Model name|Socket|Core|Thread|NUMA|MHz|L3' || true
  echo "## kernel"; uname -a
} >"$out/machine.txt" 2>&1

# The link may train down at idle: read its state while copies run.
( for i in 1 2 3 4 5 6; do
    sleep 1
    nvidia-smi --query-gpu=pcie.link.gen.current,pcie.link.width.current --format=csv,noheader 2>&1 | sed 's/^/## link while copying: /'
  done ) >>"$out/machine.txt" &
mon=$!
echo "pass 1" >&2
"$bin" "$@" >"$out/probe-1.csv"
wait $mon || true
echo "pass 2 in 60 s (noise floor)" >&2
sleep 60
"$bin" "$@" >"$out/probe-2.csv"
cat "$out/machine.txt"
echo "done: $out/probe-1.csv $out/probe-2.csv" >&2
