#!/bin/sh
# Runs coax and its peers on the same inputs, one after the other in the
# same run, every one warmed up until its rate is stable and then the best
# of 5 rounds (bench/common/measure.*), and prints them side by side with
# the ratio last.
#   run.sh OUT   (OUT holds the binaries and the generated inputs)
OUT=$1
set -e
ratio() { echo "$1 $2" | awk '{printf "%.1fx", $1/$2}'; }
row() { # label coax-line peer-line field
    c=$(echo "$2" | awk -v f="$4" '{print $f}')
    j=$(echo "$3" | awk -v f="$4" '{print $f}')
    printf '%-40s %10s %12s %8s\n' "$1" "$c" "$j" "$(ratio "$c" "$j")"
}
cb=$("$OUT"/bench_repair replies "$OUT"/replies.jsonl)
jb=$(node repair/jsonrepair.mjs replies "$OUT"/replies.jsonl)
cv=$("$OUT"/bench_repair replies "$OUT"/valid.jsonl)
jv=$(node repair/jsonrepair.mjs replies "$OUT"/valid.jsonl)
cd=$("$OUT"/bench_repair valid)
jd=$(node repair/jsonrepair.mjs valid)
echo "repair throughput in MB/s (same run, same inputs; each warmed up, best of 5 rounds)"
printf '%-40s %10s %12s %8s\n' "input" "coax" "jsonrepair" "ratio"
row "$(echo "$cb" | awk '{printf "%d broken replies, %.1f MB", $4, $6/1e6}')" "$cb" "$jb" 2
row "$(echo "$cv" | awk '{printf "%d valid replies, %.1f MB", $4, $6/1e6}')" "$cv" "$jv" 2
row "one valid document, 16 MB" "$cd" "$jd" 3
echo "recovered from the broken replies: coax $(echo "$cb" | awk '{print $8}'), jsonrepair $(echo "$jb" | awk '{print $8}')"
echo
echo "strict parsing of valid JSON, MB/s (same run, same files), and coax's instructions a byte"
echo "(callgrind, coax_parse alone, 5 passes; ratio: coax's MB/s over the peer's)"
printf '%-40s %10s %10s %8s %10s %8s %10s\n' "document" "coax" "yyjson" "ratio" "simdjson" "ratio" "instr/B"
instr() { # function binary-args... : instructions a pass of 5
    f=$1; shift
    valgrind --tool=callgrind --toggle-collect="$f" --callgrind-out-file=/dev/null "$@" 2>&1 |
        awk '/Collected/ {print $4 / 5}'
}
for f in replies records; do
    cp_=$("$OUT"/bench_repair parse "$OUT"/$f.json)
    sp=$("$OUT"/parse_simdjson "$OUT"/$f.json)
    yp="yyjson parse n/a"
    [ -x "$OUT"/parse_yyjson ] && yp=$("$OUT"/parse_yyjson "$OUT"/$f.json)
    ir=$(instr coax_parse_ex "$OUT"/bench_repair parse "$OUT"/$f.json 5)
    bytes=$(echo "$cp_" | awk '{print $5}')
    c=$(echo "$cp_" | awk '{print $3}') s=$(echo "$sp" | awk '{print $3}') y=$(echo "$yp" | awk '{print $3}')
    yr=-; [ "$y" != n/a ] && yr=$(ratio "$c" "$y")
    label="3000 valid replies as one array"
    [ $f = records ] && label="1 MB of small records"
    printf '%-40s %10s %10s %8s %10s %8s %10s\n' "$label, $(echo "$bytes" | awk '{printf "%.1f MB", $1/1e6}')" \
        "$c" "$y" "$yr" "$s" "$(ratio "$c" "$s")" "$(echo "$ir $bytes" | awk '{printf "%.1f", $1 / $2}')"
done
[ -x "$OUT"/parse_yyjson ] ||
    echo "(yyjson: no libyyjson-dev in this Debian release, so no yyjson column; simdjson's DOM parser stands beside coax)"
ir=$(instr coax_repair "$OUT"/bench_repair replies "$OUT"/valid.jsonl 5)
echo "$cv" | awk -v ir="$ir" '{printf "coax_repair on the %d valid replies (its fast path): %.1f instr/B, %s MB/s\n", $4, ir / $6, $2}'
echo
echo "in-process repair of one broken 16 KB reply, call after call (microseconds and page faults a call)"
"$OUT"/bench_repair inprocess | awk '{printf "  a new arena each call %.1f us, %s faults; one arena reset between calls %.1f us, %s faults (%.1fx)\n", $6, $12, $9, $13, $6 / $9}'
echo
echo "scaling (broken JSON; time should grow linearly with size; one 0.5 s window each)"
"$OUT"/bench_repair scaling | awk '{printf "  %10d bytes  %8.1f MB/s  %10.3f ms\n", $3, $5, $7}'
