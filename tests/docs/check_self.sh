#!/usr/bin/env bash
# docs_check.sh on its fixture docs (tests/docs/data): a passing doc (replace
# and env directives applied, output samples and a skipped block not run, a
# scratch folder shared by a doc's blocks), a failing block named by doc:line
# with its output, a skip without a reason and a stale replace.
#   check_self.sh BUILD_DIR
set -u
build="${1:?usage: check_self.sh BUILD_DIR}"
here="$(cd "$(dirname "$0")" && pwd)"
check="$here/docs_check.sh"
data="$here/data"
expect="$here/../cli/expect.sh"
fails=0
bash "$expect" --rc 0 --has "tests/docs/data/pass.md:8" --has "ran 2, skipped 1, failed 0" \
  --has "skipped (the fixture's skipped block)" --lacks "FAILED" -- bash "$check" "$build" "$data/pass.md" || fails=1
bash "$expect" --rc 1 --has "tests/docs/data/fail.md:7" --has "FAILED (exit 1)" --has "about to fail" \
  --lacks "never printed" --has "ran 1, skipped 0, failed 1" -- bash "$check" "$build" "$data/fail.md" || fails=1
bash "$expect" --rc 2 --has "tests/docs/data/empty-skip.md:3: docs-check: skip needs a reason" \
  --lacks "never run" -- bash "$check" "$build" "$data/empty-skip.md" || fails=1
bash "$expect" --rc 1 --has "replace: '--repeat 1000' is not in the block" --has "failed 1" \
  -- bash "$check" "$build" "$data/stale-replace.md" || fails=1
# --list shows a block as it would run: the replace applied.
bash "$expect" --rc 0 --has "hello replaced" --has "env GREETING=hello" --has 'echo "$GREETING replaced"' \
  -- bash "$check" --list "$build" "$data/pass.md" || fails=1
bash "$expect" --rc 2 --has "usage:" -- bash "$check" || fails=1
[[ $fails -eq 0 ]] && echo "check_self.sh: ok"
exit $fails
