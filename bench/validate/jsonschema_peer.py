# jsonschema_peer.py SCHEMA FILE.jsonl: python3-jsonschema (all errors,
# format checker on) on the same instances, printed like bench_validate.
import json, sys, time
import jsonschema

schema = json.load(open(sys.argv[1]))
lines = [l for l in open(sys.argv[2], encoding="utf-8").read().split("\n") if l][: int(sys.argv[3]) if len(sys.argv) > 3 else None]
cls = jsonschema.validators.validator_for(schema)
v = cls(schema, format_checker=cls.FORMAT_CHECKER)
values = [json.loads(l) for l in lines]

def measure(fn):
    # the best pass of those run in at least 2 s, as bench_validate measures
    ok = fn()
    best, t0 = 1e30, time.perf_counter()
    while time.perf_counter() - t0 < 2.0:
        p0 = time.perf_counter()
        ok = fn()
        best = min(best, time.perf_counter() - p0)
    return len(lines) / best, ok

def alone():
    return sum(1 for x in values if not any(True for _ in v.iter_errors(x)))

def parsed():
    return sum(1 for l in lines if not any(True for _ in v.iter_errors(json.loads(l))))

r, ok = measure(alone)
print(f"validate {r:.0f} {ok} {len(lines)}")
r, ok = measure(parsed)
print(f"parse {r:.0f} {ok} {len(lines)}")
