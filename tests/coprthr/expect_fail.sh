#!/bin/sh
# Runs a command natively and simulated (HOPSIM_MODE); each must exit with
# status RC. Prints what it printed (for the test's expected message); a
# wrong status ends with a line "hopsim-test FAILED: ..." (the tests'
# FAIL_REGULAR_EXPRESSION).
#   expect_fail.sh RC COMMAND [ARGS...]
set -u
rc="$1"; shift
for mode in native sim; do
  HOPSIM_MODE=$mode "$@" > "${TMPDIR:-/tmp}/hopsim-fail.$$" 2>&1
  got=$?
  cat "${TMPDIR:-/tmp}/hopsim-fail.$$"
  rm -f "${TMPDIR:-/tmp}/hopsim-fail.$$"
  if [ "$got" != "$rc" ]; then
    echo "hopsim-test FAILED: [$mode] exit status $got, expected $rc"
    exit 1
  fi
  echo "[$mode] exit status $got"
done
