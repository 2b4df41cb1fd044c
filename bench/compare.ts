// Two runs of `npm run -s bench -- --json > run.jsonl`, side by side: for each figure (by bench
// and name), the value and ratio of each run and how the ratio moved. Ratios are what to compare
// on a shared machine; the load averages say how busy it was at each figure.
//   npx tsx bench/compare.ts before.jsonl after.jsonl
import { readFileSync } from 'node:fs';

type Line = { bench: string; name: string; value: number; unit: string; baseline: number | null; ratio: number | null; loadavg: number };
const [a, b] = process.argv.slice(2);
if (!a || !b) {
  console.error('usage: npx tsx bench/compare.ts before.jsonl after.jsonl');
  process.exit(1);
}
const read = (file: string) =>
  new Map(
    readFileSync(file, 'utf8')
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => {
        const line = JSON.parse(l) as Line;
        return [`${line.bench} › ${line.name}`, line] as const;
      }),
  );
const before = read(a);
const after = read(b);
const fmt = (l: Line | undefined) => (l ? `${l.value} ${l.unit}${l.ratio == null ? '' : ` (ratio ${l.ratio})`} load ${l.loadavg}` : '—');
for (const key of new Set([...before.keys(), ...after.keys()])) {
  const x = before.get(key);
  const y = after.get(key);
  const moved = x?.ratio && y?.ratio ? `  ratio ×${(y.ratio / x.ratio).toFixed(2)}` : '';
  console.log(`${key}\n  before: ${fmt(x)}\n  after:  ${fmt(y)}${moved}`);
}
