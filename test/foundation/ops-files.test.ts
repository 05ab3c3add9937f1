// The dashboard and alert rules in ops/ name only metrics the service exposes (decision 0019), so a
// renamed metric cannot silently empty a panel or disarm an alert. (ops/check.sh checks their syntax.)
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { startTestService } from '../helpers/service.ts';
import { scrape } from '../helpers/metrics.ts';
import { createMetrics } from '../../src/platform/metrics.ts';

const files = ['ops/prometheus/alerts.yml', ...readdirSync('ops/grafana').map((f) => `ops/grafana/${f}`)];

test('every metric named in ops/ (dashboard, alert rules) is exposed by the service', async () => {
  const svc = await startTestService();
  after(() => svc.stop());
  const exposition = await scrape(svc);
  const defaults = await createMetrics({ defaults: true }).registry.metrics(); // as main.ts turns them on
  const exposed = new Set<string>();
  for (const [, name, type] of `${exposition}\n${defaults}`.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    exposed.add(name);
    if (type === 'histogram') for (const s of ['_bucket', '_sum', '_count']) exposed.add(name + s);
  }
  let named = 0;
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    const names = new Set([...text.matchAll(/\b(eps_[a-z0-9_]+|telemetry_[a-z0-9_]+)\b/g)].map((m) => m[1]));
    assert.ok(names.size > 3, `${file} names metrics`);
    named += names.size;
    assert.deepEqual(
      [...names].filter((n) => !exposed.has(n)),
      [],
      `${file} names metrics the service does not expose`,
    );
  }
  assert.ok(named > 10);
});
