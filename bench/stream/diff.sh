#!/bin/sh
# diff.sh OLD_LIBCOAX.a NEW_LIBCOAX.a [WORK] [quick]: the differential check
# of a change to the streaming reader. diff.c, linked with each library,
# writes everything a caller of the reader observes (every feed's code and
# message, every partial, the root's extraction) for its corpus of replies
# fed in pieces of every size; the two outputs must be byte-identical.
# Run from the repository's root.
set -e
OLD=$1 NEW=$2 W=${3:-/tmp/coax-stream-diff} MODE=$4
mkdir -p "$W"
LIBS=$(pkg-config --libs lua5.4 libpcre2-8 libcurl libidn2)
for t in old new; do
    [ $t = old ] && L=$OLD || L=$NEW
    cc -std=c11 -O2 -D_POSIX_C_SOURCE=200809L -Iengine/include -Iengine -o "$W/diff.$t" bench/stream/diff.c \
        "$L" $LIBS -lm
done
"$W/diff.old" $MODE > "$W/old.out" &
"$W/diff.new" $MODE > "$W/new.out"
wait
if cmp -s "$W/old.out" "$W/new.out"; then
    echo "stream: identical ($(wc -l < "$W/new.out") lines, md5 $(md5sum < "$W/new.out" | cut -c1-32))"
else
    echo "stream: DIFFERENT (md5 old $(md5sum < "$W/old.out" | cut -c1-12), new $(md5sum < "$W/new.out" | cut -c1-12))"
    cmp "$W/old.out" "$W/new.out" | head -1
    diff "$W/old.out" "$W/new.out" | head -20
    exit 1
fi
