// Validates Grafana dashboard JSON files: the shape Grafana needs to import them, and every
// query's PromQL (written as recording rules to a file that `promtool check rules` parses).
// Usage: node ops/check-dashboard.ts RULES_OUT DASHBOARD.json... ; exits 1 with one line per problem.
import { readFileSync, writeFileSync } from 'node:fs';

interface Panel {
  id?: number;
  type?: string;
  title?: string;
  gridPos?: { h: number; w: number; x: number; y: number };
  targets?: { refId?: string; expr?: string }[];
  panels?: Panel[];
}

const [out, ...files] = process.argv.slice(2);
if (!out || files.length === 0) {
  console.error('usage: node ops/check-dashboard.ts RULES_OUT DASHBOARD.json...');
  process.exit(2);
}
const problems: string[] = [];
const rules: string[] = [];
for (const file of files) {
  const bad = (msg: string) => problems.push(`${file}: ${msg}`);
  let dash: { uid?: unknown; title?: unknown; schemaVersion?: unknown; panels?: Panel[]; templating?: { list?: { name: string }[] } };
  try {
    dash = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    bad(`not JSON: ${(e as Error).message}`);
    continue;
  }
  if (typeof dash.uid !== 'string' || !/^[A-Za-z0-9_-]{1,40}$/.test(dash.uid)) bad('uid: 1-40 letters, digits, - or _');
  if (typeof dash.title !== 'string' || !dash.title) bad('title missing');
  if (typeof dash.schemaVersion !== 'number') bad('schemaVersion missing');
  if (!Array.isArray(dash.panels) || dash.panels.length === 0) {
    bad('no panels');
    continue;
  }
  const variables = new Set((dash.templating?.list ?? []).map((v) => v.name));
  const ids = new Set<number>();
  const all = dash.panels.flatMap((p) => [p, ...(p.panels ?? [])]);
  for (const p of all) {
    const where = `panel ${p.id} "${p.title ?? ''}"`;
    if (typeof p.id !== 'number' || ids.has(p.id)) bad(`${where}: id missing or repeated`);
    else ids.add(p.id);
    const g = p.gridPos;
    if (!g || g.x < 0 || g.w < 1 || g.x + g.w > 24 || g.h < 1 || g.y < 0) bad(`${where}: gridPos outside the 24-column grid`);
    if (p.type === 'row') continue;
    if (!p.title) bad(`${where}: no title`);
    if (!p.targets?.length) bad(`${where}: no query`);
    for (const t of p.targets ?? []) {
      if (!t.expr) {
        bad(`${where}: target ${t.refId} has no expr`);
        continue;
      }
      for (const [, name] of t.expr.matchAll(/\$\{?([A-Za-z_]\w*)/g)) {
        if (!name.startsWith('__') && !variables.has(name)) bad(`${where}: unknown variable $${name}`);
      }
      // Grafana's variables as a Prometheus would see them once substituted.
      const expr = t.expr.replace(/\$__rate_interval|\$__interval/g, '5m').replace(/\$\{?[A-Za-z_]\w*\}?/g, '.*');
      rules.push(`      - record: dashboard:panel_${p.id}_${t.refId ?? 'A'}\n        expr: ${JSON.stringify(expr)}`);
    }
  }
}
writeFileSync(out, `groups:\n  - name: dashboard-queries\n    rules:\n${rules.join('\n')}\n`);
if (problems.length) {
  for (const p of problems) console.error(p);
  process.exit(1);
}
console.log(`${files.length} dashboard(s), ${rules.length} queries: shape ok`);
