#!/usr/bin/env bash
# Runs every shell block of the documentation, so the docs cannot drift.
#
#   docs_check.sh [--list] BUILD_DIR [DOC...]
#
# DOC defaults to README.md, docs/*.md and docs/*/README.md. A fenced block
# tagged sh, bash or shell is a command block and runs; any other block
# (text, console, json, csv, untagged) is an output sample and does not.
# Each doc gets a fresh scratch copy of the repository (the working tree's
# tracked and untracked-but-not-ignored files, so uncommitted edits count)
# with `build` a symlink to BUILD_DIR. Its blocks run there in order (a later
# block sees the files an earlier one wrote), each as its own `bash` script
# with `set -e`, stdin from /dev/null and a timeout. A README.md runs in its
# own folder, every other doc at the repository root.
#
# The environment of every block: PATH starts with BUILD_DIR/sim/cli (both
# `hopsim ...` and `build/sim/cli/hopsim ...` work), QT_QPA_PLATFORM=offscreen,
# HOME and TMPDIR scratch folders of the doc (installs to ~ and temporary
# files stay in the check; paths the docs spell /tmp/... are used as written),
# and mpirun allowed as root and oversubscribed (CI runs as root on 2 cores).
#
# Directives: HTML comments on the lines right before the opening fence.
#   <!-- docs-check: skip REASON -->          do not run it; REASON is required
#   <!-- docs-check: env K=V ... -->          export these first (shell words)
#   <!-- docs-check: replace 'OLD' 'NEW' ... -->
#                                             literal substitutions in the block
#                                             before it runs (pairs; may repeat);
#                                             an OLD not in the block fails it
# Several directive lines may precede one fence; replacements apply in order
# (OLD and NEW cannot hold a single quote). `set -e` is bash's: a failure before
# the last command of an `a && b` list does not stop the block.
# Prints one line per command block (doc:line, ran / skipped (reason) /
# FAILED, seconds), the command and the last 20 lines of its output for each
# failure, and a summary. --list prints the blocks as they would run.
#
# Exit status: 0 all ran or were skipped; 1 a block failed; 2 usage or
# directive errors (nothing runs then).
#
# DOCS_CHECK_TIMEOUT  seconds per block (default 300)
# DOCS_CHECK_KEEP=1   keep the scratch folder (its path is printed)
# DOCS_CHECK_XTRACE=1 each block's log traces its commands with time stamps
set -u

prog=docs_check.sh
usage() {
  echo "usage: $prog [--list] BUILD_DIR [DOC...]" >&2
  exit 2
}

list=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    --list) list=1; shift ;;
    -h|--help) sed -n '2,/^set -u$/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;;
    --) shift; break ;;
    -*) echo "$prog: unknown option '$1'" >&2; usage ;;
    *) break ;;
  esac
done
[[ $# -ge 1 ]] || usage
build_arg="$1"; shift
timeout_s="${DOCS_CHECK_TIMEOUT:-300}"
[[ "$timeout_s" =~ ^[0-9]+$ && "$timeout_s" -gt 0 ]] || { echo "$prog: DOCS_CHECK_TIMEOUT must be a positive integer" >&2; exit 2; }

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)"
build=""
if [[ -d "$build_arg" ]]; then
  build="$(cd "$build_arg" && pwd -P)"
elif [[ $list -eq 0 ]]; then
  echo "$prog: BUILD_DIR '$build_arg' is not a folder" >&2; exit 2
fi

docs=()
if [[ $# -gt 0 ]]; then
  for d in "$@"; do
    [[ -f "$d" ]] || { echo "$prog: no such doc: $d" >&2; exit 2; }
    docs+=("$(cd "$(dirname "$d")" && pwd -P)/$(basename "$d")")
  done
else
  shopt -s nullglob
  for d in "$repo"/README.md "$repo"/docs/*.md "$repo"/docs/*/README.md; do docs+=("$d"); done
  shopt -u nullglob
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/docs-check.XXXXXX")" || exit 2
cleanup() { if [[ "${DOCS_CHECK_KEEP:-0}" == 1 ]]; then echo "$prog: scratch kept in $work"; else rm -rf "$work"; fi; }
trap cleanup EXIT

# --- parse: one meta line per command block, its body in $work/blocks/ID.sh -----------------------
# meta: ID TAB doc TAB line TAB what (run|skip|bad) TAB note (skip reason or what is wrong)
# usage errors: "usage" TAB doc:line: message
parse_awk='
function trim(s) { sub(/^[ \t]+/, "", s); sub(/[ \t]+$/, "", s); return s }
function clean(s) { gsub(/\t/, " ", s); return s }
function usage_err(line, msg) { printf "usage\t%s:%d: %s\n", label, line, msg; nerr++ }
function repl(s, old, new,   out, i) {
  out = ""
  while ((i = index(s, old)) > 0) { out = out substr(s, 1, i - 1) new; s = substr(s, i + length(old)) }
  return out s
}
function directive(line,   body, kind, rest, n, q) {
  body = line
  sub(/^[ \t]*<!--[ \t]*docs-check:[ \t]*/, "", body)
  if (body !~ /-->[ \t]*$/) { usage_err(FNR, "a docs-check directive must end with --> on its line"); return }
  sub(/[ \t]*-->[ \t]*$/, "", body)
  kind = body; sub(/[ \t].*$/, "", kind)
  rest = trim(substr(body, length(kind) + 1))
  if (!pending) first_dir = FNR
  pending = 1
  if (kind == "skip") {
    if (rest == "") usage_err(FNR, "docs-check: skip needs a reason")
    else skip = rest
  } else if (kind == "env") {
    if (rest !~ /^[A-Za-z_][A-Za-z0-9_]*=/) usage_err(FNR, "docs-check: env needs K=V words")
    else envs = envs (envs == "" ? "" : " ") rest
  } else if (kind == "replace") {
    n = 0
    while (rest != "") {
      if (!match(rest, /^'"'"'[^'"'"']*'"'"'/)) { usage_err(FNR, "docs-check: replace takes pairs of single-quoted strings"); return }
      q[++n] = substr(rest, 2, RLENGTH - 2)
      rest = trim(substr(rest, RLENGTH + 1))
    }
    if (n == 0 || n % 2) { usage_err(FNR, "docs-check: replace takes pairs of single-quoted strings"); return }
    for (i = 1; i <= n; i += 2) {
      if (q[i] == "") { usage_err(FNR, "docs-check: replace with an empty OLD"); return }
      nrep++; rold[nrep] = q[i]; rnew[nrep] = q[i + 1]
    }
  } else usage_err(FNR, "unknown docs-check directive \"" kind "\" (skip, env, replace)")
}
# A closing fence: only the opening fence character, at least as many, then blanks.
function closes(s,   n) {
  sub(/^[ \t]*/, "", s); sub(/[ \t]*$/, "", s)
  for (n = 0; substr(s, n + 1, 1) == fchar; n++) ;
  return n >= flen && n == length(s)
}
function reset_dirs() { pending = 0; skip = ""; envs = ""; nrep = 0 }
function emit(   id, what, note, i, out) {
  id = prefix "-" start
  what = "run"; note = ""
  for (i = 1; i <= nrep; i++) {
    if (index(body, rold[i]) == 0) { what = "bad"; note = "replace: '"'"'" rold[i] "'"'"' is not in the block"; break }
    body = repl(body, rold[i], rnew[i])
  }
  if (skip != "" && what == "run") { what = "skip"; note = skip }
  out = dir "/" id ".sh"
  printf "%s", body > out; close(out)
  out = dir "/" id ".env"
  printf "%s", envs > out; close(out)
  printf "%s\t%s\t%d\t%s\t%s\n", id, label, start, what, clean(note)
}
BEGIN { inb = 0; reset_dirs() }
inb {
  if (closes($0)) {
    inb = 0
    if (runnable) emit()
    reset_dirs()
    next
  }
  line = $0
  for (i = 0; i < indent && substr(line, 1, 1) == " "; i++) line = substr(line, 2)
  body = body line "\n"
  next
}
/^[ \t]*<!--[ \t]*docs-check:/ { directive($0); next }
/^[ \t]*(```|~~~)/ {
  match($0, /^[ \t]*/); indent = RLENGTH
  rest = substr($0, indent + 1)
  fchar = substr(rest, 1, 1)
  for (flen = 0; substr(rest, flen + 1, 1) == fchar; flen++) ;
  info = trim(substr(rest, flen + 1)); tag = info; sub(/[ \t{].*$/, "", tag); tag = tolower(tag)
  runnable = (tag == "sh" || tag == "bash" || tag == "shell")
  if (pending && !runnable)
    usage_err(first_dir, "docs-check directive before a block tagged \"" tag "\", which does not run (tag it sh, or drop the directive)")
  inb = 1; start = FNR; body = ""
  if (!runnable) reset_dirs()
  next
}
pending { usage_err(first_dir, "a docs-check directive must be on the line right before an opening fence"); reset_dirs() }
END {
  if (inb) usage_err(start, "the block never closes")
  if (pending) usage_err(first_dir, "a docs-check directive must be on the line right before an opening fence")
}
'
mkdir -p "$work/blocks"
meta="$work/meta"
: >"$meta"
errors=0
for i in "${!docs[@]}"; do
  doc="${docs[$i]}"
  label="${doc#"$repo"/}"
  awk -v label="$label" -v prefix="$i" -v dir="$work/blocks" "$parse_awk" "$doc" >>"$meta" || errors=1
done
if grep -q '^usage' "$meta" || [[ $errors -ne 0 ]]; then
  grep '^usage' "$meta" | cut -f2- | sed "s/^/$prog: /" >&2
  exit 2
fi

# --- list ------------------------------------------------------------------------------------------
if [[ $list -eq 1 ]]; then
  while IFS=$'\t' read -r id label line what note; do
    case "$what" in
      run) echo "$label:$line" ;;
      skip) echo "$label:$line  skip ($note)" ;;
      bad) echo "$label:$line  FAILS: $note" ;;
    esac
    [[ -s "$work/blocks/$id.env" ]] && echo "    env $(cat "$work/blocks/$id.env")"
    sed 's/^/    /' "$work/blocks/$id.sh"
  done <"$meta"
  exit 0
fi

# --- run -------------------------------------------------------------------------------------------
now() { echo "${EPOCHREALTIME/,/.}"; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

# A fresh copy of the working tree's tracked and untracked-but-not-ignored files
# (outside a git checkout: everything but build folders and out/).
scratch_copy() {
  mkdir -p "$1" || return 1
  if git -C "$repo" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    (cd "$repo" && git ls-files -z --cached --others --exclude-standard |
       tar --null -T - --ignore-failed-read -cf - 2>/dev/null) | tar -xf - -C "$1" || return 1
  else
    (cd "$repo" && tar --exclude=./build --exclude='./build-*' --exclude=./out -cf - .) | tar -xf - -C "$1" || return 1
  fi
  ln -s "$build" "$1/build"
}

running=""
on_signal() {
  [[ -n "$running" ]] && kill -TERM "$running" 2>/dev/null && wait "$running" 2>/dev/null
  echo "$prog: interrupted" >&2
  exit 130
}
trap on_signal INT TERM

ran=0 skipped=0 failed=0
t_all="$(now)"
declare -A scratch=()
last_dir=""
ompi=(OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
      OMPI_MCA_btl_vader_single_copy_mechanism=none)
while IFS=$'\t' read -r id label line what note <&3; do
  where="$label:$line"
  if [[ "$what" == skip ]]; then
    printf '%-32s skipped (%s)\n' "$where" "$note"
    skipped=$((skipped + 1))
    continue
  fi
  if [[ "$what" == bad ]]; then
    printf '%-32s FAILED (%s)\n' "$where" "$note"
    failed=$((failed + 1))
    continue
  fi
  docid="${id%%-*}"
  dir="$work/doc$docid"
  if [[ -z "${scratch[$docid]:-}" ]]; then
    # The previous doc is done: free its scratch copy (runs leave traces and installs there).
    [[ -n "$last_dir" && "${DOCS_CHECK_KEEP:-0}" != 1 ]] && rm -rf "$last_dir"
    last_dir="$dir"
    scratch_copy "$dir/repo" && mkdir -p "$dir/home" "$dir/tmp" || { echo "$prog: cannot copy the repository to $dir" >&2; exit 2; }
    scratch[$docid]=1
  fi
  # A README.md runs in its own folder, every other doc at the repository root.
  cwd="$dir/repo"
  rel="${label#"$repo"/}"
  if [[ "$(basename "$rel")" == README.md && "$rel" == */* && "$rel" != /* ]]; then cwd="$dir/repo/$(dirname "$rel")"; fi
  script="$work/blocks/$id.run"
  {
    echo "set -e"
    [[ "${DOCS_CHECK_XTRACE:-0}" == 1 ]] && echo 'PS4='"'"'+ ${EPOCHREALTIME} '"'"'; set -x'
    echo "cd '$cwd'"
    [[ -s "$work/blocks/$id.env" ]] && echo "export $(cat "$work/blocks/$id.env")"
    cat "$work/blocks/$id.sh"
  } >"$script"
  log="$work/blocks/$id.log"
  t0="$(now)"
  env PATH="$build/sim/cli:$PATH" QT_QPA_PLATFORM=offscreen HOME="$dir/home" TMPDIR="$dir/tmp" "${ompi[@]}" \
    timeout -k 10 "$timeout_s" bash "$script" </dev/null >"$log" 2>&1 &
  running=$!
  wait "$running"
  rc=$?
  running=""
  dt="$(secs "$t0" "$(now)")"
  if [[ $rc -eq 0 ]]; then
    printf '%-32s ran %8s s\n' "$where" "$dt"
    ran=$((ran + 1))
  else
    if [[ $rc -eq 124 || $rc -eq 137 ]]; then why="timed out after $timeout_s s"; else why="exit $rc"; fi
    printf '%-32s FAILED (%s) %s s\n' "$where" "$why" "$dt"
    echo "  command:"
    sed 's/^/    /' "$work/blocks/$id.sh"
    echo "  last 20 lines of its output:"
    tail -n 20 "$log" | sed 's/^/    /'
    failed=$((failed + 1))
  fi
done 3<"$meta"

[[ -n "$last_dir" && "${DOCS_CHECK_KEEP:-0}" != 1 ]] && rm -rf "$last_dir"
echo "docs-check: ran $ran, skipped $skipped, failed $failed in $(secs "$t_all" "$(now)") s"
[[ $failed -eq 0 ]] || exit 1
exit 0
