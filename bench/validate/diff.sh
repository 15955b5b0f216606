#!/bin/sh
# diff.sh OLD_LIBCOAX.a NEW_LIBCOAX.a [WORK]: the differential check of a
# change to the evaluator. diff_outputs.c, linked with each library, writes
# every output (flag, basic, detailed, with and without annotations) under
# 31 budgets for: every test of the JSON-Schema-Test-Suite, 500 orders and
# 300 invoices of the bench corpora, and 1500 orders and 1000 invoices with
# 1-3 random mutations each (mutate.mjs); the two must be byte-identical.
# Run from the repository's root.
set -e
OLD=$1 NEW=$2 W=${3:-/tmp/coax-diff}
mkdir -p "$W"
LIBS=$(pkg-config --libs lua5.4 libpcre2-8 libcurl libidn2)
for t in old new; do
    [ $t = old ] && L=$OLD || L=$NEW
    cc -std=c11 -O2 -D_POSIX_C_SOURCE=200809L -Iengine/include -o "$W/do.$t" bench/validate/diff_outputs.c \
        -Wl,--allow-multiple-definition "$L" $LIBS -lm
done
node bench/validate/gen.mjs "$W/orders.jsonl" 2000
node bench/validate/gen_invoice.mjs "$W/invoices.jsonl" 2000
head -500 "$W/orders.jsonl" > "$W/o.jsonl"
head -300 "$W/invoices.jsonl" > "$W/i.jsonl"
node bench/validate/mutate.mjs "$W/orders.jsonl" "$W/om.jsonl" 1500 5
node bench/validate/mutate.mjs "$W/invoices.jsonl" "$W/im.jsonl" 1000 6
T=spec/json-schema-test-suite
status=0
for t in old new; do
    "$W/do.$t" suite $T/tests $T/remotes > "$W/$t.suite"
    for f in o om; do "$W/do.$t" jsonl bench/validate/schema.json "$W/$f.jsonl"; done > "$W/$t.orders"
    for f in i im; do "$W/do.$t" jsonl bench/validate/invoice.schema.json "$W/$f.jsonl"; done > "$W/$t.invoices"
done
for f in suite orders invoices; do
    if cmp -s "$W/old.$f" "$W/new.$f"; then
        echo "$f: identical ($(wc -l < "$W/new.$f") lines, md5 $(md5sum < "$W/new.$f" | cut -c1-12))"
    else
        echo "$f: DIFFERENT"; status=1
    fi
done
exit $status
