#!/usr/bin/env python3
"""The validated figures, printed by one command (docs/validation.md).

Runs the simulated experiments whose figures are validated against the
published device measurements and prints them: the passing kernels' cycles
per repeat, the BG/Q halo exchange's four cycle counts, the simulated HAM
empty offload call, the largest error against BookSim2's 8x8 mesh curve,
and whether native and simulated data are equal (passing, halo, HAM).
A change that moves any of them shows here. Usage:

    tests/bench/figures.py [--hopsim build/sim/cli/hopsim] [--out /tmp/hopsim-figures]
"""
import argparse
import json
import os
import re
import subprocess
import sys
from collections import defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if p.returncode != 0:
        sys.exit("figures.py: %s exited with %d:\n%s" % (" ".join(cmd), p.returncode, p.stdout[-2000:]))
    return p.stdout


def results(hopsim, scenario, out, *sets, mode="sim"):
    cmd = [hopsim, "run", os.path.join(ROOT, scenario), "--mode", mode, "--out", out]
    for s in sets:
        cmd += ["--set", s]
    run(cmd)
    with open(os.path.join(out, "results.json")) as f:
        return json.load(f)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hopsim", default=os.path.join(ROOT, "build", "sim", "cli", "hopsim"))
    ap.add_argument("--out", default="/tmp/hopsim-figures")
    a = ap.parse_args()
    h, o = a.hopsim, a.out

    # Passing: cost per repeat from launches at 200 and 400 repeats (mean over n).
    per = {}
    for rep in (200, 400):
        r = results(h, "kernels/epiphany/passing.json", f"{o}/passing{rep}", f"kernel.args.repeat={rep}")
        d = defaultdict(list)
        for l in r["sim"]["launches"]:
            d[l["method"]].append(l["cycles"])
        per[rep] = {m: sum(v) / len(v) for m, v in d.items()}
    methods = ["broadcast", "unicast", "multicast", "broadcastNoWait"]
    cyc = [(per[400][m] - per[200][m]) / 200 for m in methods]
    print("passing cycles per repeat (broadcast / unicast / multicast / no-wait): " +
          " / ".join("%.1f" % c for c in cyc))

    r = results(h, "kernels/bgq/halo.json", f"{o}/halo")
    t = r["sim"]["timings"]
    names = ["communication only", "computation only", "computation + communication without overlap",
             "computation + communication overlapped"]
    print("bgq halo cycles (comm / comp / no overlap / overlap): " + " / ".join("%.0f" % t[n] for n in names))

    r = results(h, "kernels/xeonphi/offload-call.json", f"{o}/ham", 'kernel.args.tests=["call"]')
    print("ham empty offload call, simulated knc-7120p: %.1f ns" % r["sim"]["timings"]["call"])

    txt = run([h, "curve", "--machine", "booksim-iq", "--dims", "8x8", "--reference",
               os.path.join(ROOT, "traces/reference/booksim2/mesh8x8-uniform-1flit.csv")])
    m = re.search(r"largest \|error\| ([0-9.]+)%", txt)
    print("booksim2 mesh 8x8 uniform: largest error %s%%" % (m.group(1) if m else "?"))

    eq = []
    for name, sc, sets in [("passing", "kernels/epiphany/passing.json", ["kernel.args.repeat=20"]),
                           ("halo", "kernels/bgq/halo.json", ["kernel.args.iterations=1"]),
                           ("ham", "kernels/xeonphi/offload-call.json", ["kernel.args.runs=100"])]:
        r = results(h, sc, f"{o}/{name}-both", *sets, mode="both")
        eq.append("%s %s" % (name, "equal" if r["data_equal"] is True else "DIFFER"))
    print("native and simulated data: " + ", ".join(eq))


if __name__ == "__main__":
    main()
