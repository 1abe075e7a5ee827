#!/usr/bin/env python3
"""Architecture test for hopsim: which folders may include which.

Every C/C++ source and header (.c .cc .cpp .h .hpp .cl .inc) under the
top-level folders sim/ models/ kernels/ topologies/ traces/ gui/ tests/ is
scanned for `#include "x"` / `#include <x>` (lines inside // or /* */
comments are ignored).  x is resolved first relative to the including file's
directory, then against every include root (any directory named `include` or
`api` under the scanned folders).  A header that resolves to nothing in the
repo is external (std, SystemC, Qt, Boost, fmt, ...) and always allowed; one
that resolves to more than one repo file is an "ambiguous include".  A
family's device-API root (sim/<f>/api) is on the include path of that
family's code, its kernels and the tests only, as the build sets it: for
anything else a stand-in system header there (<mpi.h>) is not what it gets,
so `<x>` is resolved against the roots the includer sees.

A resolved repo header is allowed when its path starts with one of the
"may include" prefixes of the including file's row in LAYERS and with none of
its "never" prefixes (never wins).  Rows are matched by path prefix, the
longest matching row wins; `<f>` stands for one path component (the family,
e.g. bgq) and, in the include lists, for the same family as the includer
(for a literal row such as sim/bgq/, its second component: bgq).

Rules (see LAYERS for the authoritative table):
  gui/            gui/, traces/
  models/<f>/     models/<f>/, topologies/, traces/, sim/core/; never kernels/
                  or a device API (sim/<family>/api/); models/bgq/ also
                  models/network/, models/network/ also models/epiphany/
  topologies/     topologies/, sim/core/
  traces/         traces/, sim/core/
  kernels/<f>/    kernels/<f>/, sim/<f>/api/, sim/<f>/esdk/include/
  sim/core/       sim/core/
  sim/interpose/  sim/interpose/, sim/core/
  sim/<f>/        sim/<f>/, sim/core/, sim/interpose/, models/<f>/,
                  topologies/, traces/ + per-row extras; never kernels/
  sim/studies/    sim/studies/, sim/core/, traces/, topologies/, sim/<f>/,
                  models/<f>/ for every family
  sim/cli/        sim/ and traces/, never sim/<f>/ family folders or models/
  tests/          anything
Name rule: files under sim/core/ and sim/cli/ must not name a family
(NAME_RULE_WORDS, case-insensitive, anywhere in the file).
Namespace rule: a `namespace hopsim...` opened in a folder of NAMESPACES is
that folder's namespace or nested in it (models/bgq/ -> hopsim::bgq::model,
sim/bgq/ -> hopsim::bgq); sim/core/ is the root namespace `hopsim` itself
(plus the sub-namespaces it lists). Namespaces outside hopsim (a device
API's own, such as ham::offload) are not checked.
A source file in a folder that matches no row is a violation, so new folders
are added to the table deliberately.

Exit 0: OK (one summary line); 1: violations (one line each); 2: usage error.
With --expect FILE the violation list must equal FILE's lines exactly
(blank lines and lines starting with # are ignored); exit 0 when it does.
"""
import argparse
import os
import re
import sys

FAMILIES = ("epiphany", "bgq", "xeonphi", "host", "network")


def fam(pattern):
    """fam("sim/{}/") -> ["sim/epiphany/", "sim/bgq/", ...], one per family."""
    return [pattern.format(f) for f in FAMILIES]


# What every sim/<family>/ row may include; rows add their extras to it.
SIM_FAMILY = ["sim/<f>/", "sim/core/", "sim/interpose/", "models/<f>/",
              "topologies/", "traces/"]

# ---------------------------------------------------------------- the table --
# (folder prefix,   may include (prefixes),                    never (wins))
LAYERS = [
    # The GUI reads traces and its own code only; Qt etc. are external.
    ("gui/",           ["gui/", "traces/"],                          []),
    # Timing models: own family, shared topology/trace/core code, no devices.
    ("models/<f>/",    ["models/<f>/", "topologies/", "traces/", "sim/core/"],
                       ["kernels/"] + fam("sim/{}/api/")),
    # The BG/Q torus with flow control runs on the generic network's routers.
    ("models/bgq/",    ["models/bgq/", "models/network/", "topologies/", "traces/", "sim/core/"],
                       ["kernels/"] + fam("sim/{}/api/")),
    # Synthetic traffic runs on the eMesh timing model too.
    ("models/network/", ["models/network/", "models/epiphany/", "topologies/", "traces/", "sim/core/"],
                       ["kernels/"] + fam("sim/{}/api/")),
    # Topologies build on core only.
    ("topologies/",    ["topologies/", "sim/core/"],                 []),
    # Trace formats build on core only.
    ("traces/",        ["traces/", "sim/core/"],                     []),
    # Kernels see their own code and their family's device-API headers only
    # (the eSDK's host headers, e-hal.h and e-loader.h, are the Epiphany's
    # host API), plus hopsim's error types (a host program reports a bad
    # argument or a data mismatch through them, and so through hopsim's exit
    # codes).
    ("kernels/<f>/",   ["kernels/<f>/", "sim/<f>/api/", "sim/<f>/esdk/include/",
                        "sim/core/include/hopsim/core/error.hpp"], []),
    # The core is family-agnostic and self-contained.
    ("sim/core/",      ["sim/core/"],                                []),
    # Interposition layer sits directly on core.
    ("sim/interpose/", ["sim/interpose/", "sim/core/"],              []),
    # Device families: SIM_FAMILY plus extras for borrowed transports.
    ("sim/epiphany/",  SIM_FAMILY,                                   ["kernels/"]),
    # BG/Q ranks as processes use the host copy transport.
    ("sim/bgq/",       SIM_FAMILY + ["sim/host/"],                   ["kernels/"]),
    ("sim/xeonphi/",   SIM_FAMILY,                                   ["kernels/"]),
    ("sim/host/",      SIM_FAMILY,                                   ["kernels/"]),
    # Synthetic traffic runs on the eMesh timing model.
    ("sim/network/",   SIM_FAMILY + ["models/epiphany/"],            ["kernels/"]),
    # Studies compare families, so they may see all of them (tighten here).
    ("sim/studies/",   ["sim/studies/", "sim/core/", "traces/", "topologies/"]
                       + fam("sim/{}/") + fam("models/{}/"),         []),
    # The CLI goes through sim/core's family registry and sim/studies.
    ("sim/cli/",       ["sim/", "traces/"],                 fam("sim/{}/") + ["models/"]),
    # Tests may include anything.
    ("tests/",         [""],                                         []),
]

# Files under these folders must not name a family (word regex, any case).
NAME_RULE_FOLDERS = ("sim/core/", "sim/cli/")
NAME_RULE_WORDS = re.compile(
    r"\b(epiphany|e16g301|e64g401|bgq|blue ?gene|xeon ?phi|xeonphi|knc|ham_offload)\b",
    re.IGNORECASE)
# Namespace each folder's code opens (nested namespaces allowed), `<f>` as in
# LAYERS. A trailing "=" means that namespace exactly (no nesting).
NAMESPACES = [
    ("sim/core/",      ["hopsim=", "hopsim::log", "hopsim::crash"]),
    ("sim/interpose/", ["hopsim::interpose"]),
    ("sim/studies/",   ["hopsim::studies"]),
    ("sim/cli/",       ["hopsim::cli"]),
    ("sim/<f>/",       ["hopsim::<f>"]),
    ("models/<f>/",    ["hopsim::<f>::model"]),
    ("kernels/<f>/",   ["hopsim::<f>"]),
    ("topologies/",    ["hopsim::topo"]),
    ("traces/",        ["hopsim::traces"]),
    ("gui/",           ["hopsim::gui"]),
]
# ------------------------------------------------------------ end of table --

SCANNED = ("sim", "models", "kernels", "topologies", "traces", "gui", "tests")
SOURCE_EXT = (".c", ".cc", ".cpp", ".h", ".hpp", ".cl", ".inc")
INCLUDE_ROOT_NAMES = ("include", "api")
API_ROOT = re.compile(r"^sim/([^/]+)/api$")
FIXTURES = "tests/arch/fixtures"  # never scanned as part of a real tree
NAMESPACE_RE = re.compile(r"^\s*namespace\s+(hopsim(?:::\w+)*)\s*\{")
INCLUDE_RE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
COMMENT_TOKENS = re.compile(r'"(?:\\.|[^"\\])*"|/\*|\*/|//')

ROWS = [(re.compile("^" + re.escape(p).replace(re.escape("<f>"), "([^/]+)")),
         p, allow, never) for p, allow, never in LAYERS]
ROWS.sort(key=lambda r: (len(r[1]), "<f>" not in r[1]), reverse=True)  # most specific first


def row_for(rel):
    """(row, family, instantiated folder) for a repo path, or None."""
    for row in ROWS:
        m = row[0].match(rel)
        if m:
            # <f> binds to the captured name, or a literal row's 2nd component
            family = m.group(1) if m.groups() else (row[1].split("/") + [""])[1]
            return row, family, m.group(0)
    return None


NS_ROWS = sorted(((re.compile("^" + re.escape(p).replace(re.escape("<f>"), "([^/]+)")), p, ns)
                  for p, ns in NAMESPACES), key=lambda r: len(r[1]), reverse=True)


def namespace_rule(rel):
    """(folder, allowed namespaces with <f> bound) for a repo path, or None."""
    for rx, _, allowed in NS_ROWS:
        m = rx.match(rel)
        if m:
            f = m.group(1) if m.groups() else ""
            return m.group(0), [a.replace("<f>", f) for a in allowed]
    return None


def namespace_ok(name, allowed):
    return any(name == a[:-1] if a.endswith("=") else (name == a or name.startswith(a + "::"))
               for a in allowed)


def folder_of(rel):
    """Folder name used in messages for a target path."""
    hit = row_for(rel)
    if hit:
        return hit[2]
    parts = rel.split("/")
    return "/".join(parts[:2 if len(parts) > 2 else 1]) + "/"


def strip_comments(line, in_block):
    """Return (code without comments, still inside /* */ at end of line)."""
    out, pos = [], 0
    while True:
        if in_block:
            end = line.find("*/", pos)
            if end < 0:
                return "".join(out), True
            pos, in_block = end + 2, False
            out.append(" ")
        m = COMMENT_TOKENS.search(line, pos)
        while m and m.group(0) not in ("//", "/*"):  # skip strings, stray */
            m = COMMENT_TOKENS.search(line, m.end())
        if not m:
            out.append(line[pos:])
            return "".join(out), False
        out.append(line[pos:m.start()])
        if m.group(0) == "//":
            return "".join(out), False
        pos, in_block = m.end(), True  # "/*"


def scan_tree(root):
    """Source files and include roots, both as absolute paths."""
    sources, inc_roots = [], []
    skip = os.path.join(root, *FIXTURES.split("/"))
    for top in SCANNED:
        for d, dirs, files in os.walk(os.path.join(root, top)):
            dirs[:] = sorted(x for x in dirs if not x.startswith(("build", "out", "."))
                             and os.path.join(d, x) != skip)
            if os.path.basename(d) in INCLUDE_ROOT_NAMES:
                inc_roots.append(d)
            sources += [os.path.join(d, f) for f in sorted(files) if f.endswith(SOURCE_EXT)]
    return sources, inc_roots


def check(root):
    """Return (violations, files checked, includes resolved to repo files)."""
    root = os.path.realpath(root)
    sources, inc_roots = scan_tree(root)
    rel = lambda p: os.path.relpath(p, root).replace(os.sep, "/")
    inside = lambda p: p.startswith(root + os.sep)
    cache, bad, resolved = {}, [], 0

    def api_family(r):
        m = API_ROOT.match(rel(r))
        return m.group(1) if m else None

    def sees(src, r):
        f = api_family(r)
        return f is None or src.startswith(("sim/%s/" % f, "kernels/%s/" % f, "tests/"))

    def resolve(directory, name, src, angle):
        here = os.path.realpath(os.path.join(directory, name))
        if os.path.isfile(here):
            return [rel(here)] if inside(here) else []
        roots = tuple(r for r in inc_roots if not angle or sees(src, r))
        if (name, roots) not in cache:
            hits = {os.path.realpath(os.path.join(r, name)) for r in roots}
            cache[(name, roots)] = sorted(rel(h) for h in hits if os.path.isfile(h) and inside(h))
        return cache[(name, roots)]

    for path in sources:
        src = rel(path)
        hit = row_for(src)
        if hit is None:
            bad.append((src, 1, "folder not in the layer table: "
                        + os.path.dirname(src) + "/"))
        names_rule = src.startswith(NAME_RULE_FOLDERS)
        ns_rule = namespace_rule(src)
        with open(path, encoding="utf-8", errors="replace") as fh:
            lines = fh.read().splitlines()
        in_block = False
        for no, line in enumerate(lines, 1):
            if names_rule:
                for word in sorted({w.lower() for w in NAME_RULE_WORDS.findall(line)}):
                    bad.append((src, no, "names family '%s'" % word))
            code, in_block = strip_comments(line, in_block)
            n = NAMESPACE_RE.match(code)
            if n and ns_rule and not namespace_ok(n.group(1), ns_rule[1]):
                bad.append((src, no, "%s opens namespace %s, not %s" % (
                    ns_rule[0], n.group(1), " or ".join(a.rstrip("=") for a in ns_rule[1]))))
            m = INCLUDE_RE.match(code)
            if not m:
                continue
            header = m.group(2).strip()
            targets = resolve(os.path.dirname(path), header, src, m.group(1) == "<")
            if not targets:
                continue  # external
            resolved += 1
            if len(targets) > 1:
                bad.append((src, no, 'ambiguous include: includes "%s" (%s)'
                            % (header, ", ".join(targets))))
                continue
            if hit is None:
                continue
            (_, _, allow, never), family, folder = hit
            target = targets[0]
            sub = lambda p: p.replace("<f>", family)
            banned = [sub(n) for n in never if target.startswith(sub(n))]
            if banned:
                rule = "%s must never include %s" % (folder, banned[0])
            elif not any(target.startswith(sub(a)) for a in allow):
                rule = "%s may not include %s" % (folder, folder_of(target))
            else:
                continue
            bad.append((src, no, '%s: includes "%s" (%s)' % (rule, header, target)))
    bad.sort()
    return ["%s:%d: %s" % v for v in bad], len(sources), resolved


def main(argv=None):
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(
        description="Check hopsim's include layering (see the table at the top "
                    "of this script).")
    ap.add_argument("--root", default=os.path.normpath(os.path.join(here, "..", "..")),
                    help="repository (or fixture) root to check; default: %(default)s")
    ap.add_argument("--expect", metavar="FILE",
                    help="pass iff the violation list equals FILE's lines")
    args = ap.parse_args(argv)
    prog = os.path.basename(sys.argv[0])
    if not os.path.isdir(args.root):
        print("%s: error: --root %s: not a directory" % (prog, args.root), file=sys.stderr)
        return 2
    if not any(os.path.isdir(os.path.join(args.root, t)) for t in SCANNED):
        print("%s: error: --root %s: none of %s/ found; not a hopsim tree?"
              % (prog, args.root, "/, ".join(SCANNED)), file=sys.stderr)
        return 2
    violations, nfiles, nresolved = check(args.root)
    if args.expect:
        try:
            with open(args.expect, encoding="utf-8") as fh:
                want = [l.strip() for l in fh if l.strip() and not l.startswith("#")]
        except OSError as e:
            print("%s: error: --expect: %s" % (prog, e), file=sys.stderr)
            return 2
        missing = [l for l in want if l not in violations]
        extra = [l for l in violations if l not in want]
        for l in missing:
            print("missing:    " + l)
        for l in extra:
            print("unexpected: " + l)
        if missing or extra:
            return 1
        print("check_layers: OK: %d expected violation(s) reported exactly" % len(want))
        return 0
    for v in violations:
        print(v)
    if violations:
        print("check_layers: %d violation(s) in %d files checked"
              % (len(violations), nfiles), file=sys.stderr)
        return 1
    print("check_layers: OK: %d files checked, %d includes resolved to repo headers"
          % (nfiles, nresolved))
    return 0


if __name__ == "__main__":
    sys.exit(main())
