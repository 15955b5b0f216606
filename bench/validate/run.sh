#!/bin/sh
# Runs coax, ajv and python3-jsonschema on the same instances, one after
# the other in the same run, and prints instances per second side by side
# with coax's ratio to each peer, for two schemas:
#   schema.json          an order, written by hand (orders.jsonl, gen.mjs)
#   invoice.schema.json  an invoice as Pydantic v2 writes it: 30 $refs into
#                        20 $defs (invoices.jsonl, gen_invoice.mjs)
#   run.sh OUT   (OUT holds bench_validate and orders.jsonl)
OUT=$1
set -e
[ -f "$OUT"/invoices.jsonl ] || node validate/gen_invoice.mjs "$OUT"/invoices.jsonl 20000
get() { echo "$1" | awk -v k="$2" -v f="$3" '$1 == k {print f == "all" ? $0 : $f}'; }
ratio() { echo "$1 $2" | awk '{printf "%.2fx", $1/$2}'; }

table() { # table SCHEMA FILE PYTHON(0|1)
    S=$1 F=$2
    c=$("$OUT"/bench_validate "$S" "$F")
    a=$(node validate/ajv.mjs "$S" "$F")
    p=""
    if [ "$3" = 1 ] && python3 -c "import jsonschema" 2>/dev/null; then
        p=$(python3 validate/jsonschema_peer.py "$S" "$F" 500 2>/dev/null || true)
    fi
    n=$(get "$c" validate 4)
    echo "$S, instances per second (same run, same $n instances)"
    printf '%-34s %12s %12s %8s %14s %8s\n' "" "coax" "ajv 8.17.1" "ratio" "jsonschema" "ratio"
    for k in validate first parse; do
        cv=$(get "$c" $k 2); av=$(get "$a" $k 2); pv=""
        [ $k = first ] || pv=$(get "$p" $k 2)
        case $k in
        validate) label="validation alone, all errors" ;;
        first) label="validation alone, first error" ;;
        parse) label="parse + validate (JSONL), all" ;;
        esac
        if [ -n "$pv" ]; then
            printf '%-34s %12s %12s %8s %14s %7.0fx\n' "$label" "$cv" "$av" "$(ratio "$cv" "$av")" \
                "$pv" "$(echo "$cv $pv" | awk '{print $1/$2}')"
        else
            printf '%-34s %12s %12s %8s %14s\n' "$label" "$cv" "$av" "$(ratio "$cv" "$av")" "-"
        fi
    done
    echo "valid instances: coax $(get "$c" validate 3), ajv $(get "$a" validate 3) of $n"
    [ -n "$p" ] && echo "(jsonschema $(python3 -c 'import importlib.metadata as m; print(m.version("jsonschema"))') ran the first 500 lines: $(get "$p" validate 3) valid)"
    return 0
}

echo "JSON Schema validation: 2020-12, \$ref, enums, patterns, formats asserted,"
echo "additionalProperties false. 'all errors': every validator collects every error"
echo "(ajv allErrors: true); 'first error': each stops at the first (coax"
echo "COAX_VALIDATE_FIRST, ajv allErrors: false). coax and ajv each warmed up until"
echo "their rate is stable, then the best of 5 rounds (bench/common/measure.*);"
echo "python-jsonschema: one warm pass, then the best pass of 2 s."
echo
table validate/schema.json "$OUT"/orders.jsonl 1
echo
table validate/invoice.schema.json "$OUT"/invoices.jsonl 0
n=$(wc -l < "$OUT"/orders.jsonl)
t0=$(date +%s.%N)
"$ROOT_COAX" validate --assert-format --jsonl validate/schema.json "$OUT"/orders.jsonl > "$OUT"/validate.out || true
t1=$(date +%s.%N)
echo
echo "coax validate --jsonl (orders), whole process: $(echo "$t0 $t1 $n" | awk '{printf "%.0f instances/s (%.3f s)", $3/($2-$1), $2-$1}')"
