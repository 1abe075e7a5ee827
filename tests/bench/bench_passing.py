#!/usr/bin/env python3
"""Simulator speed on the passing kernels (a benchmark, not a test).

For each method, runs the simulated passing experiment (n = 1..16) at a
given repeat count and reports simulated remote writes per host second and
host seconds per simulated device second, then extrapolates the host time
of the full published experiment (4 methods, n = 1..16, 100000 repeats)
against the device's own run time. Usage:

    tests/bench/bench_passing.py [--hopsim build/sim/cli/hopsim] [--repeat 1000] [--runs 3]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

METHODS = ["unicast", "multicast", "broadcast", "broadcastNoWait"]


def run(hopsim, scenario, method, repeat, out):
    cmd = [hopsim, "run", scenario, "--mode", "sim", "--out", out,
           "--set", f"kernel.args.repeat={repeat}",
           "--set", f'kernel.args.methods=["{method}"]',
           "--set", "kernel.args.expect_faulty=[\"broadcastNoWait\"]"]
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - t0
    with open(os.path.join(out, "results.json")) as f:
        r = json.load(f)["sim"]
    return wall, r["wall_seconds"], r["device_seconds"], r["remote_writes"]


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(os.path.dirname(here))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hopsim", default=os.path.join(root, "build", "sim", "cli", "hopsim"))
    ap.add_argument("--scenario", default=os.path.join(root, "kernels", "epiphany", "passing.json"))
    ap.add_argument("--repeat", type=int, default=1000)
    ap.add_argument("--runs", type=int, default=3, help="runs per method; the fastest counts (shared machines are noisy)")
    a = ap.parse_args()
    print(f"| method | remote writes | simulated s | host s | writes / host s | host s / simulated s |")
    print(f"|---|---|---|---|---|---|")
    tot_host = tot_dev = tot_writes = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        for m in METHODS:
            runs = [run(a.hopsim, a.scenario, m, a.repeat, os.path.join(tmp, m)) for _ in range(a.runs)]
            _, host, dev, writes = min(runs, key=lambda r: r[1])
            tot_host += host
            tot_dev += dev
            tot_writes += writes
            print(f"| {m} | {writes:.0f} | {dev:.4f} | {host:.2f} | {writes / host / 1e6:.1f} M | {host / dev:.1f} |")
    print(f"| all four | {tot_writes:.0f} | {tot_dev:.4f} | {tot_host:.2f} | {tot_writes / tot_host / 1e6:.1f} M | {tot_host / tot_dev:.1f} |")
    scale = 100000 / a.repeat
    print(f"\nfull experiment (100000 repeats): device {tot_dev * scale:.0f} s, "
          f"simulated in about {tot_host * scale:.0f} s host ({tot_host / tot_dev:.1f}x the device's run time)")


if __name__ == "__main__":
    sys.exit(main())
