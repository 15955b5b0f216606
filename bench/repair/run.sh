#!/bin/sh
# Runs coax and jsonrepair on the same inputs, one after the other in the
# same run, and prints them side by side with the ratio.
OUT=$1
set -e
row() { # label coax-line jsonrepair-line field
    c=$(echo "$2" | awk -v f="$4" '{print $f}')
    j=$(echo "$3" | awk -v f="$4" '{print $f}')
    printf '%-40s %10s %12s %7.1fx\n' "$1" "$c" "$j" "$(echo "$c $j" | awk '{print $1/$2}')"
}
cb=$("$OUT"/bench_repair replies "$OUT"/replies.jsonl)
jb=$(node repair/jsonrepair.mjs replies "$OUT"/replies.jsonl)
cv=$("$OUT"/bench_repair replies "$OUT"/valid.jsonl)
jv=$(node repair/jsonrepair.mjs replies "$OUT"/valid.jsonl)
cd=$("$OUT"/bench_repair valid)
jd=$(node repair/jsonrepair.mjs valid)
echo "repair throughput in MB/s (same run, same inputs)"
printf '%-40s %10s %12s %8s\n' "input" "coax" "jsonrepair" "ratio"
row "$(echo "$cb" | awk '{printf "%d broken replies, %.1f MB", $4, $6/1e6}')" "$cb" "$jb" 2
row "$(echo "$cv" | awk '{printf "%d valid replies, %.1f MB", $4, $6/1e6}')" "$cv" "$jv" 2
row "one valid document, 16 MB" "$cd" "$jd" 3
echo "recovered from the broken replies: coax $(echo "$cb" | awk '{print $8}'), jsonrepair $(echo "$jb" | awk '{print $8}')"
echo
echo "scaling (broken JSON; time should grow linearly with size)"
"$OUT"/bench_repair scaling | awk '{printf "  %10d bytes  %8.1f MB/s  %10.3f ms\n", $3, $5, $7}'
