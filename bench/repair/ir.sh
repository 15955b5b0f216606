#!/bin/sh
# Instructions a byte of coax_repair under callgrind (the machine's clock is
# shared; instruction counts are not): the broken replies, the valid ones,
# and one broken 16 KB reply repaired call after call (one arena reset
# between calls), with bench_repair built against the library given. Beside
# them, mispredicted branches a byte by callgrind's branch simulation (a
# simple predictor, but data-dependent branches are what it counts well, and
# at some 15 cycles each they weigh on the clock what the instructions don't).
#   ir.sh LIBCOAX_A OUT   (OUT: bench/out with replies.jsonl, valid.jsonl)
set -e
LIB=$1 OUT=$2
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BIN=$(mktemp /tmp/bench_repair_ir.XXXXXX)
trap 'rm -f "$BIN"' EXIT
cc -std=c11 -O2 -D_POSIX_C_SOURCE=200809L -I"$ROOT"/engine/include -o "$BIN" "$ROOT"/bench/repair/bench_repair.c \
    "$LIB" $(pkg-config --libs lua5.4 libpcre2-8 libcurl libidn2) -lm
ir() { # binary-args... : instructions and mispredicted branches inside coax_repair
    valgrind --tool=callgrind --branch-sim=yes --toggle-collect=coax_repair --callgrind-out-file=/dev/null "$@" 2>&1 |
        awk '/Collected/ {print $4, $6 + $8}'
}
for f in replies valid; do
    bytes=$("$BIN" replies "$OUT"/$f.jsonl 1 | awk '{print $6}')
    i=$(ir "$BIN" replies "$OUT"/$f.jsonl 2)
    echo "$f $bytes $i" | awk '{printf "%-8s %.2f instr/B, %.3f mispredicted/B (%d bytes, 2 passes)\n", $1,
        $3 / 2 / $2, $4 / 2 / $2, $2}'
done
bytes=$("$BIN" broken 16384 1 | awk '{print $5}')
i=$(ir "$BIN" broken 16384 50)
echo "$bytes $i" | awk '{printf "broken16k %.2f instr/B, %.3f mispredicted/B (%d bytes, 50 calls)\n", $2 / 50 / $1,
    $3 / 50 / $1, $1}'
