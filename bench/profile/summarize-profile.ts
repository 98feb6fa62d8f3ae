import { readFileSync } from 'node:fs';

/**
 * Summarizes a `.cpuprofile` written by `node --cpu-prof`: self time by package and by function,
 * and the inclusive time of the functions whose name or file contains a filter.
 *
 *   node bench/dist/profile/summarize-profile.js CPU.*.cpuprofile [top=30] [filter=packages/]
 */
interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const [file, topArg = '30', filter = 'packages/'] = process.argv.slice(2);
if (!file) {
  console.error('usage: node bench/dist/profile/summarize-profile.js <file.cpuprofile> [top] [filter]');
  process.exit(2);
}
const top = Number(topArg);
const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const child of n.children ?? []) parent.set(child, n.id);

const root = process.cwd();
const short = (url: string) =>
  url
    .replace(/^file:\/\//, '')
    .replace(`${root}/node_modules/`, 'nm:')
    .replace(`${root}/`, '');
const label = (n: ProfileNode) =>
  `${n.callFrame.functionName || '(anonymous)'} ${short(n.callFrame.url)}:${n.callFrame.lineNumber + 1}`;
const packageOf = (n: ProfileNode) => {
  const path = short(n.callFrame.url);
  if (!path) return n.callFrame.functionName || '(native)';
  const parts = path.split('/');
  return path.startsWith('nm:@')
    ? parts.slice(0, 2).join('/')
    : parts.slice(0, path.startsWith('nm:') ? 1 : 3).join('/');
};

const self = new Map<string, number>();
const byPackage = new Map<string, number>();
const inclusive = new Map<string, number>();
let total = 0;
profile.samples.forEach((id, i) => {
  const dt = profile.timeDeltas[i] ?? 0;
  const node = nodes.get(id);
  if (!node) return;
  total += dt;
  self.set(label(node), (self.get(label(node)) ?? 0) + dt);
  byPackage.set(packageOf(node), (byPackage.get(packageOf(node)) ?? 0) + dt);
  const seen = new Set<string>();
  for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
    const n = nodes.get(cur);
    if (!n || seen.has(label(n))) continue;
    seen.add(label(n));
    inclusive.set(label(n), (inclusive.get(label(n)) ?? 0) + dt);
  }
});

const pct = (v: number) => `${((100 * v) / total).toFixed(1).padStart(5)}%`;
const print = (
  title: string,
  entries: Iterable<[string, number]>,
  keep: (k: string) => boolean = () => true,
) => {
  console.log(`--- ${title}`);
  for (const [k, v] of [...entries]
    .filter(([k]) => keep(k))
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)) {
    console.log(pct(v), k);
  }
};
console.log(`total ${(total / 1000).toFixed(0)} ms sampled`);
print('self time by package', byPackage);
print('self time by function', self);
print(`inclusive time, matching "${filter}"`, inclusive, (k) => k.includes(filter));
