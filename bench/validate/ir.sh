#!/bin/sh
# ir.sh LIBCOAX.a ORDERS.jsonl INVOICES.jsonl [N]: instructions per instance
# of coax_validate (callgrind, inclusive count of bench_validate's
# pass_validate over the first N lines, 2000 unless told), for both schemas
# in both modes (all errors; first error). Stable on a loaded machine, so
# an old and a new build compare by it. Run from the repository's root.
set -e
LIB=$1 ORD=$2 INV=$3 N=${4:-2000}
W=$(mktemp -d)
cc -std=c11 -O2 -D_POSIX_C_SOURCE=200809L -Iengine/include -o "$W/bv" bench/validate/bench_validate.c "$LIB" \
    $(pkg-config --libs lua5.4 libpcre2-8 libcurl libidn2) -lm
head -n "$N" "$ORD" > "$W/o.jsonl"
head -n "$N" "$INV" > "$W/i.jsonl"
for s in orders:schema.json:o invoices:invoice.schema.json:i; do
    name=${s%%:*} rest=${s#*:}; schema=${rest%%:*} f=${rest#*:}
    n=$(wc -l < "$W/$f.jsonl")
    for mode in all first; do
        valgrind --tool=callgrind --callgrind-out-file="$W/cg" --toggle-collect=pass_validate \
            "$W/bv" "bench/validate/$schema" "$W/$f.jsonl" $mode 1 >/dev/null 2>&1
        ir=$(callgrind_annotate "$W/cg" 2>/dev/null | grep -m1 'PROGRAM TOTALS' | tr -d , | awk '{print $1}')
        printf '%-9s %-6s %10.0f Ir/instance\n' "$name" "$mode" "$(echo "$ir / $n" | bc -l)"
    done
done
rm -rf "$W"
