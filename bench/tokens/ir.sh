#!/bin/sh
# ir.sh TOOL CORPUS.jsonl [ENC...]: instructions per byte of coax_tokens per
# category of the corpus (callgrind counts, stable on a loaded machine).
# TOOL is tokens_ir (tokens_ir.c); CATS="a b" limits the categories.
tool=$1; corpus=$2; shift 2
encs=${*:-o200k cl100k}
cats=${CATS-$(grep -o '"cat":"[^"]*"' "$corpus" | sort -u | sed 's/"cat":"//; s/"//')}
for enc in $encs; do
  for cat in all $cats; do
    out=$(mktemp)
    bytes=$(valgrind --tool=callgrind --callgrind-out-file="$out" --toggle-collect=coax_tokens \
      "$tool" run "$corpus" "$cat" "$enc" 2>/dev/null | sed 's/.* bytes \([0-9]*\) .*/\1/')
    ir=$(callgrind_annotate "$out" 2>/dev/null | grep -m1 'PROGRAM TOTALS' | tr -d , | awk '{print $1}')
    rm -f "$out"
    printf '%-8s %-20s %10s bytes %6.1f Ir/byte\n' "$enc" "$cat" "$bytes" "$(echo "$ir / $bytes" | bc -l)"
  done
done
