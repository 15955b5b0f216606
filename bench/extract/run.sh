#!/bin/sh
# coax and the peers' way (jsonrepair + ajv) on the same extraction cases.
CASES=../spec/fixtures/extract_cases.lua
set -e
c=$(COAX_BUILD=${COAX_BUILD:-../build} lua5.4 extract/run_coax.lua $CASES)
p=$(lua5.4 extract/dump.lua $CASES | node extract/peers.mjs)
echo "extraction cases scored by exact value ($(echo "$c" | awk '{print $5}') replies; a wrong value is worse than a failure)"
printf '%-16s %6s %7s %6s %8s\n' "" right failed wrong "right %"
for line in "$c" "$p"; do
    echo "$line" | awk '{printf "%-16s %6d %7d %6d %7.0f%%\n", $1, $2, $3, $4, 100 * $2 / $5}'
done
echo
echo "speed over the same cases, passes a second (each warmed up, best of 5 rounds)"
printf '%-36s %10s %14s %8s\n' "" coax "jsonrepair+ajv" ratio
echo "$c $p" | awk '{printf "%-36s %10.1f %14.1f %7.2fx\n", "each schema compiled once", $6, $13, $6 / $13}'
echo "$c $p" | awk '{printf "%-36s %10.1f %14.1f %7.2fx\n", "every schema compiled on every call", $7, $14, $7 / $14}'
