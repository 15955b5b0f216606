#!/bin/sh
# diff.sh OLD.a NEW.a [CORPUS.jsonl...]: builds bench/tokens/diff.c against
# two builds of libcoax.a and compares their output (every estimate of every
# encoding, raw sums, piece digests; see diff.c). Equal md5: no estimate
# changed. Corpora default to bench/out/tokens/{calib,eval}.jsonl.
#   cp build/libcoax.a /tmp/tokens_old.a   # before the change
#   sh bench/tokens/diff.sh /tmp/tokens_old.a build/libcoax.a
set -e
here=$(cd "$(dirname "$0")" && pwd)
root=$here/../..
old=$1; new=$2; shift 2
[ $# -gt 0 ] || set -- "$root/bench/out/tokens/calib.jsonl" "$root/bench/out/tokens/eval.jsonl"
tmp=${TMPDIR:-/tmp}/tokens_diff.$$
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT
libs="$(pkg-config --libs lua5.4 libpcre2-8 libcurl libidn2) -lm"
for v in old new; do
  eval lib=\$$v
  ${CC:-cc} -std=c11 -O2 -D_POSIX_C_SOURCE=200809L -I"$root/engine/include" -I"$root/engine" \
    -o "$tmp/diff_$v" "$here/diff.c" "$lib" $libs
done
"$tmp/diff_old" "$@" > "$tmp/old.txt" &
"$tmp/diff_new" "$@" > "$tmp/new.txt"
wait
wc -lc < "$tmp/old.txt" | awk '{printf "%d lines, %d bytes of estimates\n", $1, $2}'
o=$(md5sum < "$tmp/old.txt" | cut -c1-32); n=$(md5sum < "$tmp/new.txt" | cut -c1-32)
echo "old $o"
echo "new $n"
if [ "$o" = "$n" ]; then echo identical; else diff "$tmp/old.txt" "$tmp/new.txt" | head -20; echo DIFFERENT; exit 1; fi
