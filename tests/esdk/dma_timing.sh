#!/bin/sh
# The DMA engine's mechanisms, simulated (kernels/epiphany/dma): the time of
# a transfer follows one transaction per cycle of the element size e_dma_copy
# picks from the alignment; a second flow on shared links slows both flows,
# one on a crossing path (no shared link) neither; a read DMA goes at the
# rMesh's one request per 8 cycles, two reads sharing its links at half
# that each; a chain of two descriptors runs both,
# the second after its own descriptor fetch.
#   dma_timing.sh DIR HOST_EXE
set -eu
cd "$1"
csv=$(mktemp "${TMPDIR:-/tmp}/hopsim-dma.XXXXXX")
trap 'rm -f "$csv"' EXIT
HOPSIM_MODE=sim "$2" dma_bw_dev.elf "$csv" >/dev/null
cat "$csv"
# cycles of CASE, FLOW
c() { grep -F "\"$1\",$2," "$csv" | awk -F, '{ print $(NF - 2) }'; }
# within LO HI RATIO-NAME A B: LO <= A/B <= HI
fail=0
within() {
  if awk -v a="$4" -v b="$5" -v lo="$1" -v hi="$2" 'BEGIN { r = a / b; exit !(b > 0 && r >= lo && r <= hi) }'; then
    echo "ok: $3 = $4 / $5"
  else
    echo "FAIL: $3 = $4 / $5 not in [$1, $2]"; fail=1
  fi
}
dw=$(c "corner write 4 KiB" 0)
within 1.8 2.2 "words/doublewords" "$(c "corner write 4 KiB, source +4 (words)" 0)" "$dw"
within 3.6 4.4 "half-words/doublewords" "$(c "corner write 4 KiB, source +2 (half-words)" 0)" "$dw"
within 7.2 8.8 "bytes/doublewords" "$(c "corner write 4 KiB, source +1 (bytes)" 0)" "$dw"
alone=$(c "corner write 12 KiB" 0)
within 7.5 8.2 "12 KiB write, bytes per cycle" 12288 "$alone"
within 1.8 2.1 "shared links, flow 0/alone" "$(c "corner write 12 KiB, second flow (0,1)->(3,3) on shared links" 0)" "$alone"
within 1.8 2.1 "shared links, flow 1/alone" "$(c "corner write 12 KiB, second flow (0,1)->(3,3) on shared links" 1)" "$alone"
within 0.98 1.02 "crossing path, flow 0/alone" "$(c "corner write 12 KiB, crossing flow (3,0)->(0,3), no shared link" 0)" "$alone"
within 0.98 1.02 "crossing path, flow 1/alone" "$(c "corner write 12 KiB, crossing flow (3,0)->(0,3), no shared link" 1)" "$alone"
within 7.5 8.5 "12 KiB read, cycles per doubleword" "$(c "corner read 12 KiB" 0)" 1536
r4=$(c "corner read 4 KiB" 0)
within 1.8 2.1 "shared read links, flow 0/alone" "$(c "corner read 4 KiB, second read (0,1)<-(3,3) on shared links" 0)" "$r4"
within 1.8 2.1 "shared read links, flow 1/alone" "$(c "corner read 4 KiB, second read (0,1)<-(3,3) on shared links" 1)" "$r4"
within 1.0 1.05 "two chained 6 KiB descriptors/one of 12 KiB" "$(c "corner write 12 KiB, two chained descriptors of 6 KiB" 0)" "$alone"
exit $fail
