#!/usr/bin/env bash
# The path rule (docs/scenarios.md, "Paths"): paths a scenario file holds
# are relative to the file's folder; --out, --trace and --set relative to the
# current folder; results go to out/NAME by default; shipped scenarios are
# found from any folder.   paths.sh HOPSIM PASSING_SCENARIO WORKDIR SOURCE_DIR
set -u
hopsim="$1" work="$3" src="$4"
rm -rf "$work" && mkdir -p "$work/sub" && cd "$work" || exit 1
fail() { echo "paths.sh: FAILED: $*"; exit 1; }
small=(--mode sim --set kernel.args.repeat=1 --set kernel.args.n_max=1)

# A shipped scenario named relative to the source tree, run from elsewhere.
"$hopsim" run kernels/epiphany/passing.json "${small[@]}" >shipped.log 2>&1 || { cat shipped.log; fail "shipped scenario"; }
grep -q "$src/kernels/epiphany/passing.json" shipped.log || fail "the run does not name the scenario it found"
[[ -f out/passing/results.json ]] || fail "default results folder out/passing (the file's name) missing"

# Paths in a file: relative to the file's folder.
sed -e 's#"outputs": {#"outputs": {"dir": "res", "trace": "t.db", #' "$src/kernels/epiphany/passing.json" >sub/s.json
grep -q '"dir": "res"' sub/s.json || fail "could not write the test scenario"
"$hopsim" run sub/s.json "${small[@]}" >file.log 2>&1 || { cat file.log; fail "scenario with paths"; }
[[ -f sub/res/results.json && -f sub/t.db ]] || fail "outputs.dir and outputs.trace of the file not under its folder"
[[ ! -e res && ! -e t.db ]] || fail "file paths resolved against the current folder"
grep -q "sub/res/results.json" file.log || fail "the results line does not name sub/res"

# The same keys on the command line: relative to the current folder.
"$hopsim" run sub/s.json "${small[@]}" --out cli-res --trace t2.db >cli.log 2>&1 || { cat cli.log; fail "--out/--trace"; }
[[ -f cli-res/results.json && -f t2.db ]] || fail "--out and --trace not under the current folder"
"$hopsim" run sub/s.json "${small[@]}" --set 'outputs.dir="set-res"' >set.log 2>&1 || { cat set.log; fail "--set"; }
[[ -f set-res/results.json && ! -e sub/set-res ]] || fail "--set outputs.dir not under the current folder"

# A scenario found nowhere: exit 2 naming the file and where it was looked for.
"$hopsim" run kernels/nosuch.json >missing.log 2>&1
rc=$?
[[ $rc -eq 2 ]] || fail "missing scenario: exit $rc, expected 2"
grep -q "scenario: kernels/nosuch.json: no such file here, nor in .*$src" missing.log || { cat missing.log; fail "missing scenario message"; }
echo "paths.sh: ok"
