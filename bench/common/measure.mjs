// measure.mjs: how every benchmark here times a piece of work, the same
// procedure as bench/common/measure.h for coax, so a ratio compares like
// with like:
//   1. warm-up: windows of 0.2 s until two windows in a row agree on the
//      rate within 3% (the JIT has compiled and settled), at most 3 s;
//   2. then 5 rounds of at least 0.2 s each; the figure is the best round.
// pass() does the work once and returns how many items gave a result.
// Returns { rate (passes/s), ok, warm (s) }.
const WINDOW = 0.2, MAX_WARM = 3.0, ROUNDS = 5;
const now = () => Number(process.hrtime.bigint()) / 1e9;

function windowRate(pass, secs) {
  const t0 = now();
  let n = 0, ok = 0, t;
  do { ok = pass(); n++; t = now() - t0; } while (t < secs);
  return [n / t, ok];
}

export function measureBest(pass) {
  const t0 = now();
  let prev = 0, ok = 0;
  for (;;) {
    const [r, k] = windowRate(pass, WINDOW);
    ok = k;
    if (prev > 0 && r < prev * 1.03 && r > prev * 0.97) break;
    if (now() - t0 > MAX_WARM) break;
    prev = r;
  }
  const warm = now() - t0;
  let best = 0;
  for (let i = 0; i < ROUNDS; i++) {
    const [r, k] = windowRate(pass, WINDOW);
    ok = k;
    if (r > best) best = r;
  }
  return { rate: best, ok, warm };
}
