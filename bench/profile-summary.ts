// Summarises a V8 .cpuprofile (from BENCH_NODE_ARGS="--cpu-prof --cpu-prof-dir=DIR"): self time per
// function and per file/package, and inclusive time of functions whose name matches --match.
// Only samples from --skip-ms after the profile's start are counted (module loading comes first).
//   node bench/profile-summary.ts FILE.cpuprofile [--skip-ms=3000] [--from-first=ingest] [--top=40] [--match=ingest,stream]
import { readFileSync } from 'node:fs';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: Node[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

const [file, ...rest] = process.argv.slice(2);
const opt = Object.fromEntries(rest.map((a) => a.replace(/^--/, '').split('=') as [string, string]));
const skipUs = Number(opt['skip-ms'] ?? 0) * 1000;
const top = Number(opt.top ?? 40);
const match = (opt.match ?? '').split(',').filter(Boolean);
/** Count from the first sample whose stack holds a function of this name (e.g. ingest: after start-up). */
const fromFirst = opt['from-first'];

const p = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const byId = new Map(p.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

const shortUrl = (u: string) => {
  if (!u) return '(native)';
  const nm = u.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const parts = u.slice(nm + 13).split('/');
    return parts[0].startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0];
  }
  const src = u.indexOf('/src/');
  if (src >= 0) return u.slice(src + 1);
  return u.replace(/^file:\/\//, '');
};
const label = (n: Node) => `${n.callFrame.functionName || '(anonymous)'} ${shortUrl(n.callFrame.url)}:${n.callFrame.lineNumber + 1}`;

const self = new Map<string, number>();
const perFile = new Map<string, number>();
const inclusive = new Map<string, number>();
let total = 0;
let started = false;
let t = p.startTime;
for (let i = 0; i < p.samples.length; i++) {
  const dt = p.timeDeltas[i] ?? 0;
  t += dt;
  if (t - p.startTime < skipUs) continue;
  const n = byId.get(p.samples[i])!;
  if (fromFirst && !started) {
    for (let id: number | undefined = n.id; id !== undefined && !started; id = parent.get(id)) started = byId.get(id)!.callFrame.functionName === fromFirst;
    if (!started) continue;
  }
  if (n.callFrame.functionName === '(idle)') continue;
  total += dt;
  self.set(label(n), (self.get(label(n)) ?? 0) + dt);
  const f = shortUrl(n.callFrame.url) + (n.callFrame.url ? '' : ` ${n.callFrame.functionName}`);
  perFile.set(f, (perFile.get(f) ?? 0) + dt);
  if (match.length) {
    const seen = new Set<string>();
    for (let id: number | undefined = n.id; id !== undefined; id = parent.get(id)) {
      const name = byId.get(id)!.callFrame.functionName;
      for (const m of match)
        if (name === m && !seen.has(m)) {
          seen.add(m);
          inclusive.set(m, (inclusive.get(m) ?? 0) + dt);
        }
    }
  }
}
const pct = (us: number) => `${((us / total) * 100).toFixed(1).padStart(5)} %  ${(us / 1000).toFixed(0).padStart(6)} ms`;
console.log(`busy (non-idle) time counted: ${(total / 1000).toFixed(0)} ms`);
console.log(`\nself time by function (top ${top}):`);
for (const [k, v] of [...self].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`  ${pct(v)}  ${k}`);
console.log(`\nself time by file / package:`);
for (const [k, v] of [...perFile].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`  ${pct(v)}  ${k}`);
if (match.length) {
  console.log(`\ninclusive time of:`);
  for (const m of match) console.log(`  ${pct(inclusive.get(m) ?? 0)}  ${m}`);
}
