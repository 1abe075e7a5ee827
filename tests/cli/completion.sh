#!/usr/bin/env bash
# hopsim completion bash: the script loads in bash and completes the
# subcommands (every one `hopsim --help` lists), nested subcommands, options,
# the choices of options with a fixed set, file names for other values.
#   completion.sh HOPSIM SCENARIO WORKDIR
set -u
hopsim="$1" work="$3"
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
"$hopsim" completion bash >c.sh || exit 1
"$hopsim" completion zsh | grep -q bashcompinit || { echo "completion.sh: FAILED: zsh script"; exit 1; }
"$hopsim" --help >help.txt || exit 1
subs=$(sed -n '/^Subcommands:/,$p' help.txt | awk 'NR > 1 && NF { print $1 }')
[[ -n "$subs" ]] || { echo "completion.sh: FAILED: no subcommands in --help"; exit 1; }
SUBS="$subs" bash -c '
source ./c.sh || exit 1
t() { local want="$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _hopsim
      [[ " ${COMPREPLY[*]} " == *" $want "* ]] || { echo "completion.sh: FAILED: [$*] offers \"${COMPREPLY[*]}\", not $want"; exit 1; }; }
none() { COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _hopsim
      [[ ${#COMPREPLY[@]} -eq 0 ]] || { echo "completion.sh: FAILED: [$*] offers \"${COMPREPLY[*]}\" for a file name"; exit 1; }; }
for s in $SUBS; do t "$s" hopsim ""; done
t run hopsim ru
t stats hopsim trace ""
t export hopsim trace ""
t --trace-window hopsim run x.json --trace-w
t native hopsim run x.json --mode ""
t hops hopsim run x.json --trace-detail h
t keys hopsim list ""
t calibrate hopsim host ""
t bash hopsim completion ""
t --perfetto hopsim trace export run.db --p
none hopsim run x.json --out ""
none hopsim run x.json --trace ""
' || exit 1
echo "completion.sh: ok"
