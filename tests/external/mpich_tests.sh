#!/bin/bash
# Builds MPICH's own test programs of test/mpi/pt2pt and test/mpi/coll
# unmodified with hopsim-mpicc (with MPICH's MTest utility, util/mtest.c
# and util/mtest_common.c) and runs each simulated and natively with the
# rank count of MPICH's testlist; prints a table and the pass rates.
#
#   tests/external/mpich_tests.sh CHECKOUT [--out DIR] [--ranks N] [--build DIR] [--timeout S] [PROGRAM...]
#
# CHECKOUT is a folder holding MPICH's test/mpi (a checkout of
# pmodels/mpich, fetched outside this repository). --out: the scratch
# folder for the generated headers, objects, programs and outputs (default
# a fresh one under TMPDIR); --ranks: the most ranks a program runs with
# (default 8; a testlist count above it runs with N), one rank per node of a
# torus that holds them; --build: hopsim's build directory (default: build);
# --timeout: seconds per run (default 120). PROGRAM...: only these.
#
# A program is selected when it compiles and links against hopsim's MPI
# (sections no one calls dropped, so an MTest routine the program does not
# use needs none of its calls); otherwise it is listed as "not built" with
# the MPI calls it lacks (or the compiler's first error). A selected
# program passes a mode when it prints " No Errors" (or "No Errors", from
# run_mpitests.c's main) and exits 0, as MPICH's
# runtests judges it. Exit status: 0 when every selected program passes
# both modes, 1 otherwise, 2 for a usage error.
set -u
usage() { awk 'NR > 1 { if (!/^#/) exit; sub(/^# ?/, ""); print }' "$0"; }

checkout="" out="" cap=8 build="" limit=120
only=()
while [ $# -gt 0 ]; do
  case "$1" in
    -h|--help) usage; exit 0 ;;
    --out|--ranks|--build|--timeout)
      [ $# -ge 2 ] || { echo "mpich_tests.sh: $1 needs a value" >&2; exit 2; }
      case "$1" in --out) out="$2" ;; --ranks) cap="$2" ;; --build) build="$2" ;; --timeout) limit="$2" ;; esac
      shift 2 ;;
    -*) echo "mpich_tests.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    *) if [ -z "$checkout" ]; then checkout="$1"; else only+=("$1"); fi; shift ;;
  esac
done
[ -n "$checkout" ] || { echo "usage: $0 CHECKOUT [--out DIR] [--ranks N] [--build DIR] [--timeout S] [PROGRAM...]" >&2; exit 2; }
case "$cap" in ''|*[!0-9]*|0) echo "mpich_tests.sh: --ranks takes a positive number, got '$cap'" >&2; exit 2 ;; esac
case "$limit" in ''|*[!0-9]*|0) echo "mpich_tests.sh: --timeout takes a positive number of seconds, got '$limit'" >&2; exit 2 ;; esac
src="$checkout/test/mpi"
for f in util/mtest.c util/mtest_common.c include/mpitest.h pt2pt coll; do
  [ -e "$src/$f" ] || { echo "$checkout: no MPICH test/mpi here ($src/$f is missing)" >&2; exit 2; }
done
here=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${build:-$here/build}" 2>/dev/null && pwd) || { echo "mpich_tests.sh: no build directory" >&2; exit 2; }
mpicc="$build/bgq/bin/hopsim-mpicc"
lib="$build/bgq/lib"
[ -x "$mpicc" ] || { echo "$build: no bgq/bin/hopsim-mpicc (build hopsim first)" >&2; exit 2; }
src=$(cd "$src" && pwd)
if [ -z "$out" ]; then out=$(mktemp -d "${TMPDIR:-/tmp}/hopsim-mpich.XXXXXX"); else mkdir -p "$out"; fi
out=$(cd "$out" && pwd)
mkdir -p "$out/include" "$out/obj" "$out/bin" "$out/log" "$out/scenario"

# What configure would write for this MPI: the headers are C99 and POSIX,
# no thread package (the threaded tests are not in pt2pt and coll).
cat > "$out/include/mpitestconf.h" <<'EOF'
#define HAVE_UNISTD_H 1
#define HAVE_STDLIB_H 1
#define HAVE_STRING_H 1
#define HAVE_STDINT_H 1
#define HAVE_SYS_TIME_H 1
#define HAVE_SYS_RESOURCE_H 1
#define HAVE_STDARG_H 1
#define USE_STDARG 1
#define HAVE_LONG_LONG 1
#define THREAD_PACKAGE_NAME THREAD_PACKAGE_NONE
#include "hopsim_mpich_names.h"
EOF
# Names of the MPI standard that the MTest sources mention and hopsim's
# mpi.h does not declare: types and constants only, so that a program using
# a routine that needs them fails to link on the routine's missing calls.
cat > "$out/include/hopsim_mpich_names.h" <<'EOF'
#include <mpi.h>
#ifndef MPI_GROUP_NULL
typedef int MPI_Group;
#endif
#ifndef MPI_MAX_OBJECT_NAME
#define MPI_MAX_OBJECT_NAME 128
#endif
#ifndef MPI_UNIVERSE_SIZE
#define MPI_UNIVERSE_SIZE (-1001)
#endif
#ifndef MPI_COMBINER_NAMED
#define MPI_COMBINER_NAMED 1
#endif
EOF
: > "$out/include/mtest_mpix.h"
# The MPI version the tests assume (mpitest.h's MTEST_MPI_VERSION, as its
# comment says to set it): 4.0, so a test of a later call than MPI 1 tries it
# rather than skipping it, and is not built when hopsim lacks the call.
cflags=(-O2 -Wno-everything -ffunction-sections -fdata-sections -DMTEST_MPI_VERSION=4 -DMTEST_MPI_SUBVERSION=0 -I"$out/include" -I"$src/include")

# obj/NAME.o from SOURCE; the first compiler error in log/NAME.build when it fails.
compile() {  # NAME SOURCE [FLAG...]
  local name="$1" source="$2"
  shift 2
  "$mpicc" -c "${cflags[@]}" "$@" "$source" -o "$out/obj/$name.o" >"$out/log/$name.build" 2>&1
}
first_error() { grep -m1 'error:' "$1" | sed 's/.*error: //'; }

# The calls the objects need that libhopsim-bgq does not have (sorted, comma-separated, empty when none).
missing_calls() {
  local so="$out/obj/link-check.so"
  cc -shared -o "$so" -Wl,--gc-sections -Wl,--no-undefined -Wl,--wrap=exit "$@" -L"$lib" -lhopsim-bgq -lm \
    2>&1 | sed -n "s/.*undefined reference to \`\(.*\)'/\1/p" | sed 's/^hopsim_bgq_//' | sort -u | paste -sd, | sed 's/,/, /g'
  rm -f "$so"
}

# A torus of one node per rank.
torus() {
  case "$1" in 1) echo 1x1x1x1x1 ;; 2) echo 2x1x1x1x1 ;; 4) echo 2x2x1x1x1 ;; 8) echo 2x2x2x1x1 ;;
    16) echo 2x2x2x2x1 ;; 32) echo 2x2x2x2x2 ;; *) echo "$1x1x1x1x1" ;; esac
}
scenario() {
  local t f="$out/scenario/$1.json"
  IFS=x read -r -a t <<< "$(torus "$1")"
  printf '{"machine": {"preset": "bgq", "torus_a": %d, "torus_b": %d, "torus_c": %d, "torus_d": %d, "torus_e": %d}}\n' \
    "${t[@]}" > "$f"
  echo "$f"
}

# Runs NAME in MODE with RANKS: PASS, or why not.
run_one() {
  local name="$1" mode="$2" ranks="$3" log="$out/log/$1.$2" rc
  HOPSIM_MODE="$mode" HOPSIM_SCENARIO="$(scenario "$ranks")" HOPSIM_QUIET=1 \
    timeout -k 5 "$limit" "$out/bin/$name" >"$log" 2>&1 </dev/null
  rc=$?
  if [ $rc -eq 0 ] && grep -qE '^ ?No Errors' "$log"; then echo PASS
  elif [ $rc -eq 124 ] || [ $rc -eq 137 ]; then echo "timeout (${limit} s)"
  elif [ $rc -eq 0 ]; then echo "exit 0 without \" No Errors\""
  else
    local why
    why=$(grep -m1 -E 'hopsim: |Found [0-9]+ errors|MPI_ERR|cannot load' "$log" | cut -c1-110)
    echo "exit $rc${why:+: $why}"
  fi
}

# The programs: each name of the testlists once, with its first rank count.
programs=()
for dir in pt2pt coll; do
  while read -r name ranks _; do
    [ -f "$src/$dir/$name.c" ] || continue
    if [ ${#only[@]} -gt 0 ]; then
      keep=0; for p in "${only[@]}"; do [ "$p" = "$name" ] && keep=1; done
      [ $keep = 1 ] || continue
    fi
    case " ${programs[*]} " in *" $dir/$name:"*) continue ;; esac
    programs+=("$dir/$name:$ranks")
  done < <(grep -E '^[a-zA-Z0-9_]+ +[0-9]+' "$src/$dir/testlist.in")
done

# MTest's routines are hidden in the program's code, so the link drops those it does not call.
mtest=()
for m in mtest mtest_common mtest_single; do
  compile $m "$src/util/$m.c" -fvisibility=hidden ||
    { echo "util/$m.c does not compile: $(first_error "$out/log/$m.build")" >&2; exit 1; }
  mtest+=("$out/obj/$m.o")
done
# The main() of the programs that define run(const char*) instead (MPICH's util/run_mpitests.c).
compile run_mpitests "$src/util/run_mpitests.c" ||
  { echo "util/run_mpitests.c does not compile: $(first_error "$out/log/run_mpitests.build")" >&2; exit 1; }

selected=0 pass_sim=0 pass_native=0 pass_both=0
notbuilt=()
printf '%-26s %5s  %-8s %-8s  %s\n' program ranks sim native "reason"
for entry in "${programs[@]}"; do
  path="${entry%%:*}" ranks="${entry##*:}"
  name=$(basename "$path")
  [ "$ranks" -le "$cap" ] || ranks=$cap
  if ! compile "$name" "$src/$path.c"; then
    notbuilt+=("$path|compile error: $(first_error "$out/log/$name.build")")
    continue
  fi
  objs=("$out/obj/$name.o" "${mtest[@]}")
  nm "$out/obj/$name.o" | grep -q ' T main$' || objs+=("$out/obj/run_mpitests.o")
  miss=$(missing_calls "${objs[@]}")
  if [ -n "$miss" ]; then notbuilt+=("$path|missing $miss"); continue; fi
  if ! "$mpicc" -O2 -Wl,--gc-sections -o "$out/bin/$name" "${objs[@]}" >>"$out/log/$name.build" 2>&1; then
    notbuilt+=("$path|link error: $(first_error "$out/log/$name.build")")
    continue
  fi
  selected=$((selected + 1))
  s=$(run_one "$name" sim "$ranks")
  n=$(run_one "$name" native "$ranks")
  reason=""
  [ "$s" = PASS ] && pass_sim=$((pass_sim + 1)) || reason="sim: $s"
  [ "$n" = PASS ] && pass_native=$((pass_native + 1)) || reason="${reason:+$reason; }native: $n"
  [ "$s" = PASS ] && [ "$n" = PASS ] && pass_both=$((pass_both + 1))
  printf '%-26s %5d  %-8s %-8s  %s\n' "$path" "$ranks" "$([ "$s" = PASS ] && echo pass || echo FAIL)" \
    "$([ "$n" = PASS ] && echo pass || echo FAIL)" "$reason"
done
for e in "${notbuilt[@]}"; do
  printf '%-26s %5s  %-8s %-8s  %s\n' "${e%%|*}" - - - "not built: ${e#*|}"
done
pct() { [ "$2" -gt 0 ] && echo "$((100 * $1 / $2))%" || echo "-"; }
echo
echo "selected (built): $selected of ${#programs[@]}; not built: ${#notbuilt[@]}"
echo "passed sim: $pass_sim/$selected ($(pct $pass_sim $selected)); passed native: $pass_native/$selected ($(pct $pass_native $selected)); both: $pass_both/$selected ($(pct $pass_both $selected))"
if [ ${#notbuilt[@]} -gt 0 ]; then
  echo "not built, by missing call or compile error (programs):"
  for e in "${notbuilt[@]}"; do
    r="${e#*|}"
    case "$r" in missing*) tr ',' '\n' <<< "${r#missing }" | sed 's/^ *//' ;; *) echo "$r" ;; esac
  done | sort | uniq -c | sort -rn | awk '{ n = $1; $1 = ""; printf "  %4d  %s\n", n, substr($0, 2) }'
fi
echo "outputs: $out"
[ "$pass_both" = "$selected" ] && exit 0 || exit 1
