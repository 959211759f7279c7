# A store of about 1 GB beside a small run named "small", for BENCHMARKS.md "One run beside a big
# store". Usage (from the repository root): python3 bench/big-store.py many|huge STATE_DIR,
# then UNOBSERVED_STATE_DIR=STATE_DIR /usr/bin/time unobserved report --run small --format json.
import sys, json, os
fixture = 'tests/fixtures/store-v1.jsonl'
lines = [l for l in open(fixture).read().splitlines() if l.strip()]
small = [l.replace('20261201-002829-b163', 'small') for l in lines if '20261201-002829-b163' in l]
sample = next(l for l in lines if '"kind":"sample"' in l and '20261201-002826-a3c0' in l)
run = next(l for l in lines if '"kind":"run"' in l and '20261201-002826-a3c0' in l)
shape, out = sys.argv[1], sys.argv[2]
os.makedirs(out, exist_ok=True)
with open(os.path.join(out, 'results.jsonl'), 'w', buffering=1 << 20) as f:
    if shape == 'huge':   # few huge lines: report_memory's shape
        f.write('\n'.join(small) + '\n')
        f.write(run.replace('20261201-002826-a3c0', 'big') + '\n')
        note = 'x' * (256 * 1024)
        s = json.loads(sample.replace('20261201-002826-a3c0', 'big')); s['note'] = note
        line = json.dumps(s, separators=(',', ':')) + '\n'
        for _ in range(4096):
            f.write(line)
    else:                 # many ordinary lines: 10,000 runs of 125 samples
        for r in range(10_000):
            rid = 'r%05d' % r
            if r == 5_000:
                f.write('\n'.join(small) + '\n')
            f.write(run.replace('20261201-002826-a3c0', rid) + '\n')
            f.write((sample.replace('20261201-002826-a3c0', rid) + '\n') * 125)
