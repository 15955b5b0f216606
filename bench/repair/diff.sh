#!/bin/sh
# The differential check of the parser and the repairer: diff_parse.c built
# against two libraries (an old build and this one) must print the same
# bytes over the bench corpus, the spec's JSON fixtures, generated
# documents and generated broken replies (MODEL of them, 100,000 unless told).
#   diff.sh OLD_LIBCOAX_A NEW_LIBCOAX_A OUT   (OUT: bench/out with the corpus)
set -e
OLD=$1 NEW=$2 OUT=$3
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
LIBS="$(pkg-config --libs lua5.4 libpcre2-8 libcurl libidn2) -lm"
for side in old new; do
    lib=$OLD; [ $side = new ] && lib=$NEW
    cc -std=c11 -O1 -D_POSIX_C_SOURCE=200809L -I"$ROOT"/engine -I"$ROOT"/engine/include \
        -o "$OUT"/diff_parse_$side "$ROOT"/bench/repair/diff_parse.c "$lib" $LIBS
done
corpus=$(find "$ROOT"/spec/json-schema-test-suite "$ROOT"/spec/fixtures "$ROOT"/spec/fuzz/seeds \
    "$ROOT"/schemas -type f \( -name '*.json' -o -name '*.jsonl' -o -path '*seeds*' \) | sort)
corpus="$corpus $OUT/replies.json $OUT/records.json $OUT/replies.jsonl $OUT/valid.jsonl"
status=0
for side in old new; do
    "$OUT"/diff_parse_$side files $corpus > "$OUT"/diff_files_$side.txt
    "$OUT"/diff_parse_$side gen 1 ${GEN:-100000} > "$OUT"/diff_gen_$side.txt
    "$OUT"/diff_parse_$side model 1 ${MODEL:-100000} > "$OUT"/diff_model_$side.txt
done
for what in files gen model; do
    if cmp -s "$OUT"/diff_${what}_old.txt "$OUT"/diff_${what}_new.txt; then
        echo "diff $what: identical ($(grep -c '^\(file\|line\|gen\|model\) ' "$OUT"/diff_${what}_new.txt) inputs, $(wc -c < "$OUT"/diff_${what}_new.txt) bytes of output)"
        rm -f "$OUT"/diff_${what}_old.txt "$OUT"/diff_${what}_new.txt # gigabytes; kept only when they differ
    else
        echo "diff $what: DIFFERENT"; cmp "$OUT"/diff_${what}_old.txt "$OUT"/diff_${what}_new.txt || true
        status=1
    fi
done
exit $status
