#!/bin/sh
# Runs a command and passes its output through; a non-zero exit status ends
# with a line "hopsim-test FAILED: ...", for tests judged by a
# PASS_REGULAR_EXPRESSION (which alone ignores the exit status) and a
# FAIL_REGULAR_EXPRESSION on that line.
#   must_succeed.sh COMMAND [ARGS...]
"$@"
rc=$?
[ "$rc" = 0 ] || { echo "hopsim-test FAILED: $1 exit status $rc"; exit "$rc"; }
