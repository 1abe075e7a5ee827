#!/usr/bin/env bash
# `trace export --perfetto OUT` with an extension that names no format: exit 2, one message
# naming the extension and both choices, and no file written.
#   trace_export_bad_extension.sh HOPSIM SCENARIO WORKDIR
set -u
hopsim="$1" scenario="$2" work="$3"
expect="$(dirname "$0")/expect.sh"
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
bash "$expect" --rc 0 --has "trace: run.db" -- "$hopsim" run "$scenario" --mode sim --set kernel.args.repeat=2 \
  --set kernel.args.n_max=1 --out out --trace run.db --trace-detail counters || exit 1
bash "$expect" --rc 2 --has "hopsim: error: trace export: --perfetto run.txt: unknown extension '.txt'" \
  --has "use .json for trace-event JSON, or .perfetto-trace or .pftrace for Perfetto's protobuf format" \
  -- "$hopsim" trace export run.db --perfetto run.txt || exit 1
bash "$expect" --rc 2 --has "--perfetto run: no extension" -- "$hopsim" trace export run.db --perfetto run || exit 1
if ls run.txt* run 2>/dev/null | grep -q .; then echo "a file was written"; exit 1; fi
echo "trace_export_bad_extension.sh: ok"
