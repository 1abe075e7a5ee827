#!/usr/bin/env bash
# Runs every fuzz harness of a standalone fuzz build (see CMakeLists.txt) for
# SECONDS each and prints one line per harness: seconds, executions, edge
# coverage, corpus size and crashes. Usage: run.sh BUILD_DIR SECONDS [HARNESS...]
# Each harness's working corpus (BUILD_DIR/corpus/NAME) grows over runs; the
# seeds and regression inputs of tests/fuzz/corpus/NAME are read each time.
# A crash, leak, sanitizer report, timeout (10 s) or memory over 2 GiB is
# written to BUILD_DIR/crashes/ and makes the exit status 1.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
if [[ $# -lt 2 || "$1" == --help ]]; then
  sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//'
  [[ "${1:-}" == --help ]] && exit 0 || exit 2
fi
build="$1" seconds="$2"
shift 2
if ! grep -qs '^CMAKE_PROJECT_NAME:STATIC=hopsim_fuzz$' "$build/CMakeCache.txt" || [[ ! -x "$build/fuzz_trace_seeds" ]]; then
  echo "run.sh: $build is not a fuzz build (make fuzz-build, or cmake -S tests/fuzz -B $build with clang)" >&2
  exit 2
fi
[[ "$seconds" =~ ^[0-9]+$ && "$seconds" -gt 0 ]] || { echo "run.sh: SECONDS must be a positive integer, not '$seconds'" >&2; exit 2; }
harnesses=("$@")
if [[ ${#harnesses[@]} -eq 0 ]]; then
  for f in "$build"/fuzz_*; do
    n="$(basename "$f")"
    [[ -x "$f" && "$n" != fuzz_trace_seeds ]] && harnesses+=("${n#fuzz_}")
  done
fi
"$build/fuzz_trace_seeds" "$build/trace-seeds" || exit 1
mkdir -p "$build/crashes" "$build/logs"
status=0
printf '%-18s %8s %12s %8s %8s %8s\n' harness seconds executions cov corpus crashes
for h in "${harnesses[@]}"; do
  exe="$build/fuzz_$h"
  [[ -x "$exe" ]] || { echo "run.sh: no harness '$h' in $build" >&2; exit 2; }
  work="$build/corpus/$h"
  mkdir -p "$work"
  seeds=("$here/corpus/$h")
  [[ "$h" == trace_file ]] && seeds+=("$build/trace-seeds")
  log="$build/logs/$h.log"
  before=$(find "$build/crashes" -name "$h-*" | wc -l)
  "$exe" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 \
    -artifact_prefix="$build/crashes/$h-" "$work" "${seeds[@]}" >"$log" 2>&1
  rc=$?
  after=$(find "$build/crashes" -name "$h-*" | wc -l)
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
  corpus=$(find "$work" -type f | wc -l)
  printf '%-18s %8s %12s %8s %8s %8s\n' "$h" "$seconds" "${execs:-?}" "${cov:-?}" "$corpus" "$((after - before))"
  if [[ $rc -ne 0 || $after -gt $before ]]; then
    status=1
    echo "  $h failed (exit $rc); see $log and $build/crashes/$h-*" >&2
    grep -m3 -E 'ERROR|fuzz contract|runtime error' "$log" | sed 's/^/  /' >&2
  fi
done
exit $status
