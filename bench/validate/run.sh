#!/bin/sh
# Runs coax, ajv and python3-jsonschema on the same instances, one after
# the other in the same run, and prints instances per second side by side
# with coax's ratio to each peer.
#   run.sh OUT   (OUT holds bench_validate and orders.jsonl)
OUT=$1
set -e
S=validate/schema.json
F="$OUT"/orders.jsonl
c=$("$OUT"/bench_validate $S "$F")
a=$(node validate/ajv.mjs $S "$F")
p=""
if python3 -c "import jsonschema" 2>/dev/null; then
    p=$(python3 validate/jsonschema_peer.py $S "$F" 500 2>/dev/null || true)
fi
get() { echo "$1" | awk -v k="$2" -v f="$3" '$1 == k {print $f}'; }
n=$(get "$c" validate 4)
echo "JSON Schema validation, instances per second (same run, same $n instances;"
echo "schema: validate/schema.json, 2020-12, \$ref, enums, patterns, formats asserted,"
echo "additionalProperties false; all errors collected by every validator; coax and ajv each"
echo "warmed up until their rate is stable, then the best of 5 rounds (bench/common/measure.*);"
echo "python-jsonschema: one warm pass, then the best pass of 2 s)"
printf '%-26s %12s %12s %8s %14s %8s\n' "" "coax" "ajv 8.17.1" "ratio" "jsonschema" "ratio"
for k in validate parse; do
    cv=$(get "$c" $k 2); av=$(get "$a" $k 2); pv=$(get "$p" $k 2)
    label="validation alone"
    [ $k = parse ] && label="parse + validate (JSONL)"
    if [ -n "$pv" ]; then
        printf '%-26s %12s %12s %7.2fx %14s %7.0fx\n' "$label" "$cv" "$av" "$(echo "$cv $av" | awk '{print $1/$2}')" \
            "$pv" "$(echo "$cv $pv" | awk '{print $1/$2}')"
    else
        printf '%-26s %12s %12s %7.2fx %14s\n' "$label" "$cv" "$av" "$(echo "$cv $av" | awk '{print $1/$2}')" "-"
    fi
done
echo "valid instances: coax $(get "$c" validate 3), ajv $(get "$a" validate 3) of $n"
[ -n "$p" ] && echo "(jsonschema $(python3 -c 'import importlib.metadata as m; print(m.version("jsonschema"))') ran the first 500 lines: $(get "$p" validate 3) valid)"
t0=$(date +%s.%N)
"$ROOT_COAX" validate --assert-format --jsonl $S "$F" > "$OUT"/validate.out || true
t1=$(date +%s.%N)
echo "coax validate --jsonl, whole process: $(echo "$t0 $t1 $n" | awk '{printf "%.0f instances/s (%.3f s)", $3/($2-$1), $2-$1}')"
