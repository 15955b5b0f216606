#!/bin/sh
# Runs coax and jsonrepair on the same inputs and prints them side by side.
OUT=$1
set -e
c=$("$OUT"/bench_repair replies "$OUT"/replies.jsonl)
j=$(node repair/jsonrepair.mjs replies "$OUT"/replies.jsonl)
cv=$("$OUT"/bench_repair valid)
jv=$(node repair/jsonrepair.mjs valid)
echo "repair throughput (same run, same inputs)"
printf '%-34s %12s %12s %8s\n' "input" "coax MB/s" "jsonrepair" "ratio"
cm=$(echo "$c" | awk '{print $2}'); jm=$(echo "$j" | awk '{print $2}')
printf '%-34s %12s %12s %7.1fx\n' "$(echo "$c" | awk '{print $4" broken replies, "$6/1e6" MB"}')" "$cm" "$jm" "$(echo "$cm $jm" | awk '{print $1/$2}')"
cm=$(echo "$cv" | awk '{print $3}'); jm=$(echo "$jv" | awk '{print $3}')
printf '%-34s %12s %12s %7.1fx\n' "valid JSON, 16 MB" "$cm" "$jm" "$(echo "$cm $jm" | awk '{print $1/$2}')"
echo "recovered: coax $(echo "$c" | awk '{print $8}'), jsonrepair $(echo "$j" | awk '{print $8}') of $(echo "$c" | awk '{print $4}')"
echo
echo "scaling (broken JSON; time should grow linearly with size)"
"$OUT"/bench_repair scaling | awk '{printf "  %10d bytes  %8.1f MB/s  %10.3f ms\n", $3, $5, $7}'
