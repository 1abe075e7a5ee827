#!/usr/bin/env python3
"""Cost of the device pass (a benchmark, not a test).

Builds tests/bench/esdk_loop.c twice: with hopsim's e-gcc as a device
program (the eCore memory model: local addresses, globals in core memory,
loop ticks, counted instructions) and with plain clang -O2 as an ordinary
host program. Runs the device program natively and simulated (annotated
and counted compute) through e-hal and the plain one
directly, alternating, fastest of N runs each, and reports the pass's
native overhead against the noise floor (the plain program against itself).
The checksums must agree: the same data either way.

    tests/bench/bench_esdk.py [--build build] [--runs 5]
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

LINE = re.compile(r"esdk_loop: ([0-9.]+) ns per element, checksum ([0-9a-f]+)")


def run(cmd, env=None):
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, env=env).stdout
    m = LINE.search(out)
    if not m:
        sys.exit(f"bench_esdk.py: unexpected output from {cmd[0]}: {out!r}")
    return float(m.group(1)), m.group(2)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(os.path.dirname(here))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.path.join(root, "build"))
    ap.add_argument("--runs", type=int, default=5)
    a = ap.parse_args()
    esdk = os.path.join(os.path.abspath(a.build), "esdk")
    egcc = os.path.join(esdk, "tools", "e-gnu", "bin", "e-gcc")
    lib = os.path.join(esdk, "tools", "host", "lib")
    with tempfile.TemporaryDirectory() as tmp:
        dev, host, plain = (os.path.join(tmp, n) for n in ("loop_dev.elf", "loop_host", "loop_plain"))
        src = os.path.join(here, "esdk_loop.c")
        subprocess.run([egcc, "-O2", src, "-o", dev], check=True)
        subprocess.run(["cc", "-O2", os.path.join(here, "esdk_loop_host.c"), "-o", host, "-I",
                        os.path.join(esdk, "tools", "host", "include"), "-L", lib, "-le-hal", "-le-loader",
                        f"-Wl,-rpath,{lib}"], check=True)
        subprocess.run(["clang-16", "-O2", src, "-o", plain], check=True)
        native = dict(os.environ, HOPSIM_MODE="native", HOPSIM_QUIET="1")
        sim = dict(os.environ, HOPSIM_MODE="sim", HOPSIM_QUIET="1")
        res = {"plain": [], "plain again": [], "device, native": []}
        sums = set()
        for _ in range(a.runs):
            for name, cmd, env in (("plain", [plain], None), ("device, native", [host, dev], native),
                                   ("plain again", [plain], None)):
                ns, s = run(cmd, env)
                res[name].append(ns)
                sums.add(s)
        ns_sim, s = run([host, dev], sim)
        sums.add(s)
        ns_counted, s = run([host, dev], dict(sim, HOPSIM_COMPUTE="counted"))
        sums.add(s)
        if len(sums) != 1:
            sys.exit(f"bench_esdk.py: checksums differ: {sorted(sums)}")
        best = {k: min(v) for k, v in res.items()}
        print(f"{N_ELEMS} element updates per run, fastest of {a.runs}")
        print("| build | ns per element | against plain |")
        print("|---|---|---|")
        for k in ("plain", "plain again", "device, native"):
            print(f"| {k} | {best[k]:.4f} | {100 * (best[k] / best['plain'] - 1):+.1f}% |")
        print(f"| device, simulated (host time) | {ns_sim:.4f} | {100 * (ns_sim / best['plain'] - 1):+.1f}% |")
        print(f"| device, simulated, counted compute (host time) | {ns_counted:.4f} | "
              f"{100 * (ns_counted / best['plain'] - 1):+.1f}% |")
        print(f"checksum {sums.pop()} in every build")


N_ELEMS = 2048 * 200000

if __name__ == "__main__":
    main()
