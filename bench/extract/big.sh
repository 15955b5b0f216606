#!/bin/sh
# Extract on a big document with many schema errors against validating it:
# a 16 MB array of records, 30% of them with a quantity written as a string.
# Validation and extraction run as separate processes (each reports its own
# peak memory); the extraction runs under a memory cap and a time limit, so
# a non-linear case is reported as such instead of taking the machine. Each
# runs EXTRACT_BIG_RUNS times (3), the two in turns, and the least time of
# each is read: one run each moved the ratio between 1.8x and 4.3x on a
# shared machine (validation's page faults vary most).
#   big.sh OUT [MB] [PERCENT]
OUT=$1
MB=${2:-16}
PCT=${3:-30}
CAP_KB=${EXTRACT_BIG_CAP_KB:-6291456}
LIMIT_S=${EXTRACT_BIG_SECONDS:-300}
RUNS=${EXTRACT_BIG_RUNS:-3}
least() { grep . | sort -k2,2g | head -n 1; } # the line with the least seconds
vs="" es=""
i=0
while [ "$i" -lt "$RUNS" ]; do
    vs="$vs$("$OUT"/bench_extract_big validate "$MB" "$PCT")
"
    es="$es$(ulimit -v "$CAP_KB"; timeout "$LIMIT_S" "$OUT"/bench_extract_big extract "$MB" "$PCT" 2>/dev/null)
"
    i=$((i + 1))
done
v=$(printf '%s' "$vs" | least)
e=$(printf '%s' "$es" | least)
echo "extract on a $MB MB document, $PCT% of its records mistyped, against validating it"
echo "(the least time of $RUNS runs each, taken in turns; peak memory above the process's own start)"
printf '%-22s %10s %12s %14s\n' "" seconds "peak MB" "peak / size"
echo "$v" | awk '{printf "%-22s %10.2f %12.0f %13.1fx\n", "parse + validate", $2, $3 / 1024, $3 * 1024 / $4}'
if [ -n "$e" ] && [ "$(echo "$e" | awk '{print $7}')" = COAX_OK ]; then
    echo "$e" | awk '{printf "%-22s %10.2f %12.0f %13.1fx   (%s, %s)\n", "extract", $2, $3 / 1024, $3 * 1024 / $4, $5, $6}'
    echo "$v $e" | awk '{printf "time ratio extract / validate: %.1fx\n", $9 / $2}'
elif [ -n "$e" ]; then
    echo "$e" | awk -v cap="$((CAP_KB / 1024))" '{printf "%-22s %10.2f %12s   failed: %s (memory capped at %s MB)\n", "extract", $2, "-", $7, cap}'
else
    echo "extract: did not finish within $LIMIT_S s and $((CAP_KB / 1024)) MB (not linear in the document)"
fi
