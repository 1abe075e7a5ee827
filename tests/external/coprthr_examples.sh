#!/bin/bash
# Builds Brown Deer COPRTHR's Parallella stdcl examples unmodified with
# hopsim's drop-ins, runs each natively and simulated, checks its output
# against the closed form and prints a table.
#
#   tests/external/coprthr_examples.sh CHECKOUT [BUILD_DIR]
#
# CHECKOUT is a checkout of browndeer/coprthr (fetched outside this
# repository); BUILD_DIR is hopsim's build directory (default: build). Each
# example folder is copied to a scratch folder, its Makefile.in turned into
# a Makefile as configure would (prefix, includedir and libdir: hopsim's
# eSDK tree; the OpenCL library: ocl) and built with make (cc, clcc from
# BUILD_DIR/esdk/setup.sh). Expected output:
#   hello_stdcl:       c[i] = sum_j (1.1 i j)(2.2 j), j = 0..15, i = 0..15
#   clopen_exampleK:   c[i] = K a[i] b[i], a[i] = 1.1 i, b[i] = 2.2 i, i = 0..1023
#                      (K = COEF: 1 built at clopen, 2 by clbuild's -D COEF=2,
#                      3 from outerprod_three.cl linked in by clcc)
# within a relative 1e-5 (the kernels compute in float). Exit status: the
# number of programs that did not pass both ways.
set -u
checkout="${1:?usage: $0 CHECKOUT [BUILD_DIR]}"
build="${2:-build}"
examples="$checkout/examples/parallella"
[ -d "$examples/hello_stdcl" ] || { echo "$checkout: not a coprthr checkout (no examples/parallella)" >&2; exit 2; }
build=$(cd "$build" && pwd)
[ -f "$build/esdk/setup.sh" ] || { echo "$build: no esdk/setup.sh (build hopsim first)" >&2; exit 2; }
# shellcheck source=/dev/null
. "$build/esdk/setup.sh"
scratch=$(mktemp -d "${TMPDIR:-/tmp}/hopsim-coprthr.XXXXXX")
limit="${HOPSIM_EXAMPLE_TIMEOUT:-300}"

configure() {  # Makefile.in -> Makefile, as COPRTHR's configure substitutes it
  sed -e "s|@prefix@|$EPIPHANY_HOME|g; s|@exec_prefix@|$EPIPHANY_HOME|g" \
      -e "s|@OPENCL_INCLUDE@|$EPIPHANY_HOME/tools/host/include|g; s|@includedir@|$EPIPHANY_HOME/tools/host/include|g" \
      -e "s|@OPENCL_LIB@|$EPIPHANY_HOME/tools/host/lib|g; s|@libdir@|$EPIPHANY_HOME/tools/host/lib|g" \
      -e "s|@OPENCL_LIBNAME@|ocl|g" "$1/Makefile.in" > "$1/Makefile"
}

# Lines "i ... c" checked against the closed form; prints "N/M" values right.
check() {  # file kind coef
  awk -v kind="$2" -v coef="$3" '
    function close_to(got, want) { d = got - want; if (d < 0) d = -d; return d <= 1e-5 * (want < 0 ? -want : want) + 1e-4 }
    $1 ~ /^[0-9]+$/ {
      i = $1 + 0; n++
      if (kind == "hello") { ok += (NF == 3 && close_to($2, 2.2 * i) && close_to($3, 2.42 * i * 1240)) }
      else { ok += (NF == 4 && close_to($2, 1.1 * i) && close_to($3, 2.2 * i) && close_to($4, coef * 2.42 * i * i)) }
    }
    END { printf "%d/%d\n", ok, n }' "$1"
}

run_one() {  # dir mode command kind coef count -> "PASS|time|checked" or "FAIL...|time|checked"
  local dir="$1" mode="$2" cmd="$3" out="$scratch/$(basename "$1").$3.$2"
  (cd "$dir" && HOPSIM_MODE="$mode" timeout "$limit" "./$cmd") > "$out.out" 2> "$out.err"
  local rc=$? sim checked
  sim=$(sed -n 's/^hopsim: simulated [^:]*: \([0-9.]*\) s.*/\1 s/p' "$out.err" | tail -1)
  checked=$(check "$out.out" "$4" "$5")
  if [ $rc -eq 0 ] && [ "$checked" = "$6/$6" ]; then
    echo "PASS|${sim:--}|$checked"
  elif [ $rc -eq 124 ]; then
    echo "TIMEOUT|-|$checked"
  else
    echo "FAIL($rc)|${sim:--}|$checked"
  fi
}

# folder | executable | output kind | COEF | lines
programs=(
  "hello_stdcl|hello_stdcl.x|hello|1|16"
  "clopen_example|clopen_example1.x|clopen|1|1024"
  "clopen_example|clopen_example2.x|clopen|2|1024"
  "clopen_example|clopen_example3.x|clopen|3|1024"
)

failed=0
printf '%-32s %-7s %-10s %-10s %-14s %s\n' program builds native simulated "simulated time" "values right"
for entry in "${programs[@]}"; do
  IFS='|' read -r folder exe kind coef count <<< "$entry"
  dst="$scratch/$folder"
  if [ ! -d "$dst" ]; then
    cp -r "$examples/$folder" "$dst"
    configure "$dst"
    (cd "$dst" && make) > "$dst.build.log" 2>&1
  fi
  if [ -x "$dst/$exe" ]; then
    builds=yes
    IFS='|' read -r native _ nchecked <<< "$(run_one "$dst" native "$exe" "$kind" "$coef" "$count")"
    IFS='|' read -r simulated simtime schecked <<< "$(run_one "$dst" sim "$exe" "$kind" "$coef" "$count")"
    values="$nchecked, $schecked"
  else
    builds=no; native=-; simulated=-; simtime=-; values=-
  fi
  printf '%-32s %-7s %-10s %-10s %-14s %s\n' "$folder/$exe" "$builds" "$native" "$simulated" "$simtime" "$values"
  [ "$native" = PASS ] && [ "$simulated" = PASS ] || failed=$((failed + 1))
done
echo "logs: $scratch"
exit $failed
