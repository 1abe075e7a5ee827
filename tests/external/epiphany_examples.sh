#!/bin/bash
# Builds and runs public Epiphany SDK programs unmodified with hopsim's
# drop-ins, natively and simulated, and prints a table.
#
#   tests/external/epiphany_examples.sh CHECKOUT [BUILD_DIR] [PROGRAM...]
#
# CHECKOUT is a checkout of adapteva/epiphany-examples (fetched outside this
# repository); BUILD_DIR is hopsim's build directory (default: build). Each
# program is copied to a scratch folder, built with its own build script
# (EPIPHANY_HOME and PATH from BUILD_DIR/esdk/setup.sh), and run with
# HOPSIM_MODE=native and HOPSIM_MODE=sim; a run passes when the program
# exits 0, prints what its own check expects and no failure of it. Exit status: the number of
# programs that did not pass both ways.
set -u
checkout="${1:?usage: $0 CHECKOUT [BUILD_DIR] [PROGRAM...]}"
build="${2:-build}"
shift $(( $# >= 2 ? 2 : 1 ))
[ -d "$checkout/apps" ] || { echo "$checkout: not an epiphany-examples checkout" >&2; exit 2; }
build=$(cd "$build" && pwd)
[ -f "$build/esdk/setup.sh" ] || { echo "$build: no esdk/setup.sh (build hopsim first)" >&2; exit 2; }
# shellcheck source=/dev/null
. "$build/esdk/setup.sh"
scratch=$(mktemp -d "${TMPDIR:-/tmp}/hopsim-examples.XXXXXX")
limit="${HOPSIM_EXAMPLE_TIMEOUT:-300}"

# program | build command | run command (from the program's folder) | what the output must contain | what it
# must not contain (the programs' own checks; some print a failure and still exit 0)
programs=(
  "apps/hello-world|./build.sh|cd Debug && ./hello_world.elf|Hello World from core|Failed"
  "dma/dma_2d|./build.sh|cd bin && ./dma_2d_test.elf|PASS for byte size|Fail"
  "dma/dma_chain|./build.sh|cd bin && ./dma_chain_test.elf|PASS for byte size|Fail"
  "dma/dma_interrupt|./build.sh|cd bin && ./dma_int_test.elf|PASS!|Fail"
  "cpu/mutex|./build.sh|cd bin && ./mutex_test.elf|Counter: PASS|FAIL"
  "cpu/remote_call|./build.sh|cd bin && ./main.elf|test Remote Call passed!|failed"
  "cpu/nested_interrupts|./build.sh|cd bin && ./interrupt_test.elf|I am interrupt E_USER_INT with lower priority!|Failed"
  "emesh/emesh_traffic|./build.sh|cd bin && ./mesh_traffic.elf|PASS for verification!|FAIL"
  "emesh/emesh_read_latency|./build.sh|cd bin && ./main.elf|test emesh_read_latency passed!|failed!"
  "apps/e-bandwidth-test|./build.sh|./bin/e-bandwidth-test-host.elf|TEST \"e-bandwidth-test\" PASSED|FAILED"
  "apps/matmul-16|./build.sh|cd host/Release && ./matmul.elf ../../device/Release/e_matmul.elf|TEST \"matmul-16\" PASSED|FAILED"
)

run_one() {  # dir mode run_cmd expect forbid -> prints PASS/FAIL and the simulated time
  local dir="$1" mode="$2" cmd="$3" expect="$4" forbid="$5" out="$scratch/$(echo "${1#"$scratch"/}" | tr / _).$2"
  (cd "$dir" && HOPSIM_MODE="$mode" timeout "$limit" bash -c "$cmd") > "$out.out" 2> "$out.err"
  local rc=$?
  local sim
  sim=$(sed -n 's/^hopsim: simulated [^:]*: \([0-9.]*\) s.*/\1 s/p' "$out.err" | tail -1)
  if [ $rc -eq 0 ] && { [ -z "$expect" ] || grep -qF -- "$expect" "$out.out" "$out.err"; } &&
     { [ -z "$forbid" ] || ! grep -qF -- "$forbid" "$out.out" "$out.err"; }; then
    echo "PASS|${sim:--}"
  elif [ $rc -eq 124 ]; then
    echo "TIMEOUT|-"
  else
    echo "FAIL($rc)|${sim:--}"
  fi
}

failed=0
printf '%-26s %-7s %-10s %-10s %s\n' program builds native simulated "simulated time"
for entry in "${programs[@]}"; do
  IFS='|' read -r path bcmd rcmd expect forbid <<< "$entry"
  if [ $# -gt 0 ] && ! printf '%s\n' "$@" | grep -qx "$path"; then continue; fi
  src="$checkout/$path"
  dst="$scratch/$path"
  mkdir -p "$(dirname "$dst")" && cp -r "$src" "$dst"
  if (cd "$dst" && bash -c "$bcmd") > "$dst.build.log" 2>&1; then
    builds=yes
    IFS='|' read -r native _ <<< "$(run_one "$dst" native "$rcmd" "$expect" "$forbid")"
    IFS='|' read -r simulated simtime <<< "$(run_one "$dst" sim "$rcmd" "$expect" "$forbid")"
  else
    builds=no; native=-; simulated=-; simtime=-
  fi
  printf '%-26s %-7s %-10s %-10s %s\n' "$path" "$builds" "$native" "$simulated" "$simtime"
  [ "$native" = PASS ] && [ "$simulated" = PASS ] || failed=$((failed + 1))
done
echo "logs: $scratch"
exit $failed
