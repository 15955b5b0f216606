#!/bin/sh
# run.sh RECIPE.lua: runs a recipe with one replayed reply, 2 GB address space, T s (120)
here=$(dirname "$0")
printf '"{\\"a\\":1}"\n' > /tmp/attack_reply.jsonl
ulimit -v 2000000
r=$1; shift
/usr/bin/time -f "wall %e s, maxrss %M KB" timeout ${T:-120} "${COAX:-$here/../build/coax}" run "$r" --replay /tmp/attack_reply.jsonl "$@" 2>&1 | tail -${LINES_OUT:-6}
