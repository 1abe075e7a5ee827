#!/usr/bin/env python3
"""Cost of the raw-access instrumentation (a benchmark, not a test).

Builds two kernel libraries with hopsim-cc: the instrumented one (every load
and store calls hopsim's hooks) and the same sources with --no-interpose.
Runs both natively, on the raw passing kernels (communication-bound) and on
a tight local loop (memory-bound), fastest of N runs each, and reports the
overhead; then simulated raw accesses per host second on the local loop.

    tests/bench/bench_raw.py [--build build] [--runs 3]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile


def sh(cmd):
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def run(hopsim, scenario, lib, mode, sets, out):
    cmd = [hopsim, "run", scenario, "--mode", mode, "--out", out, "--set", f'kernel.library="{lib}"']
    for s in sets:
        cmd += ["--set", s]
    sh(cmd)
    with open(os.path.join(out, "results.json")) as f:
        r = json.load(f)[mode]
    return sum(x["seconds"] for x in r["launches"]), r["wall_seconds"], r


def best(n, f):
    return min((f() for _ in range(n)), key=lambda x: x[0])


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(os.path.dirname(here))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.path.join(root, "build"))
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--repeat", type=int, default=200, help="repeats of the passing kernel per launch")
    a = ap.parse_args()
    hopsim = os.path.join(a.build, "sim", "cli", "hopsim")
    cc = os.path.join(a.build, "hopsim-cc")
    ep = os.path.join(root, "kernels", "epiphany")
    with tempfile.TemporaryDirectory() as tmp:
        libs = {}
        for variant, flags in (("instrumented", []), ("plain", ["--no-interpose"])):
            libs[("passing", variant)] = os.path.join(tmp, f"passing-{variant}.so")
            sh([cc, *flags, "-I", ep, "-o", libs[("passing", variant)], os.path.join(ep, "raw", "passing_raw.cl"),
                os.path.join(ep, "raw", "package_raw.cpp"), os.path.join(ep, "passing_host.cpp")])
            libs[("loop", variant)] = os.path.join(tmp, f"loop-{variant}.so")
            sh([cc, *flags, "-o", libs[("loop", variant)], os.path.join(here, "local_loop.cl"),
                os.path.join(here, "local_loop_host.cpp")])
        loop_scn = os.path.join(tmp, "loop.json")
        with open(loop_scn, "w") as f:
            json.dump({"machine": {"preset": "e16g301"}, "kernel": {"name": "local-loop", "args": {"reps": 20000}}}, f)
        passing_scn = os.path.join(ep, "raw", "passing-raw.json")
        psets = [f"kernel.args.repeat={a.repeat}", 'kernel.args.methods=["unicast","broadcast"]']
        print("| workload (native) | instrumented s | plain s | overhead |")
        print("|---|---|---|---|")
        for name, scn, sets in ((f"passing unicast+broadcast, repeat {a.repeat}", passing_scn, psets),
                                ("local loop, 16 x 20000 x 1024 volatile loads", loop_scn, [])):
            key = "passing" if "passing" in name else "loop"
            t = {v: best(a.runs, lambda v=v: run(hopsim, scn, libs[(key, v)], "native", sets, os.path.join(tmp, "o")))[0]
                 for v in ("instrumented", "plain")}
            print(f"| {name} | {t['instrumented']:.3f} | {t['plain']:.3f} | {100 * (t['instrumented'] / t['plain'] - 1):+.1f}% |")
        dev, wall, _ = best(a.runs, lambda: run(hopsim, loop_scn, libs[("loop", "instrumented")], "sim", [],
                                                os.path.join(tmp, "s")))
        accesses = 16 * 20000 * (1024 + 1)
        print(f"\nsimulated local loop: {accesses} raw accesses, {dev * 1e3:.2f} ms simulated in {wall:.2f} s host "
              f"({accesses / wall / 1e6:.1f} M raw accesses per host second)")


if __name__ == "__main__":
    sys.exit(main())
