#!/usr/bin/env bash
# Runs one command and checks its exit status and what it printed.
#
#   expect.sh [--dir DIR] [--rc N] [--has TEXT]... [--lacks TEXT]... -- COMMAND [ARG]...
#
#   --dir DIR    empty DIR (remove it, create it) and run COMMAND in it
#   --rc N       the exit status COMMAND must return (default 0)
#   --has TEXT   stdout+stderr must contain TEXT (fixed string, grep -F)
#   --lacks TEXT stdout+stderr must not contain TEXT
#   --no-core    allow core dumps (ulimit -c unlimited), then fail if COMMAND
#                left a core file in the folder it ran in (with --dir)
#
# Prints the command, the status and the output; exits 1 if any check fails.
set -u

dir=""
want_rc=0
has=()
lacks=()
no_core=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    --dir) dir="$2"; shift 2 ;;
    --rc) want_rc="$2"; shift 2 ;;
    --has) has+=("$2"); shift 2 ;;
    --lacks) lacks+=("$2"); shift 2 ;;
    --no-core) no_core=1; shift ;;
    --) shift; break ;;
    *) echo "expect.sh: unknown option '$1' (the command follows --)" >&2; exit 1 ;;
  esac
done
if [[ $# -eq 0 ]]; then
  echo "expect.sh: no command given" >&2
  exit 1
fi

if [[ -n "$dir" ]]; then
  rm -rf -- "$dir" && mkdir -p -- "$dir" || { echo "expect.sh: cannot prepare $dir" >&2; exit 1; }
  cd -- "$dir" || exit 1
fi

if [[ $no_core -eq 1 ]]; then ulimit -c unlimited 2>/dev/null || ulimit -c "$(ulimit -H -c)"; fi
out="$("$@" 2>&1)"
rc=$?

problems=()
if [[ "$rc" != "$want_rc" ]]; then problems+=("exit status $rc, expected $want_rc"); fi
for s in ${has[@]+"${has[@]}"}; do
  grep -qF -- "$s" <<<"$out" || problems+=("output lacks: $s")
done
for s in ${lacks[@]+"${lacks[@]}"}; do
  grep -qF -- "$s" <<<"$out" && problems+=("output contains: $s")
done
if [[ $no_core -eq 1 ]]; then
  cores=$(find . -maxdepth 1 -name 'core*' -type f)
  [[ -z "$cores" ]] || problems+=("core files left: $cores")
fi

printf '$'
printf ' %q' "$@"
printf '\n(in %s) exit status %s\n' "$PWD" "$rc"
if [[ ${#problems[@]} -eq 0 ]]; then
  printf '%s\n' "$out"
  echo "expect.sh: ok"
  exit 0
fi
echo "----- output -----"
printf '%s\n' "$out"
echo "------------------"
for p in "${problems[@]}"; do echo "expect.sh: FAILED: $p"; done
exit 1
