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

test('every alert rule has a description, a runbook section in docs/operating.md and a unit test that makes it fire', () => {
  const rules = readFileSync('ops/prometheus/alerts.yml', 'utf8');
  const tests = readFileSync('ops/prometheus/alerts.test.yml', 'utf8');
  const operating = readFileSync('docs/operating.md', 'utf8');
  const anchors = new Set(
    [...operating.matchAll(/^#{2,4} (.+)$/gm)].map((m) =>
      m[1]
        .trim()
        .toLowerCase()
        .replace(/[^a-z0-9 -]/g, '')
        .replace(/ /g, '-'),
    ),
  );
  const blocks = rules.split(/^\s+- alert: /m).slice(1);
  assert.equal(blocks.length, [...rules.matchAll(/- alert: /g)].length);
  const problems: string[] = [];
  for (const block of blocks) {
    const name = block.split('\n')[0].trim();
    if (!/^\s+description: "[^"]{20,}"$/m.test(block)) problems.push(`${name}: no description`);
    const url = /^\s+runbook_url: "docs\/operating\.md#([a-z0-9-]+)"$/m.exec(block)?.[1];
    if (url !== name.toLowerCase()) problems.push(`${name}: runbook_url is not docs/operating.md#${name.toLowerCase()}`);
    else if (!anchors.has(url)) problems.push(`${name}: docs/operating.md has no section ${name}`);
    // A firing test: an expected alert of this name with a non-empty exp_alerts list.
    const firing = new RegExp(`alertname: ${name}\\n\\s+exp_alerts:\\n\\s+- exp_labels`).test(tests);
    if (!firing) problems.push(`${name}: no unit test in alerts.test.yml makes it fire`);
  }
  assert.deepEqual(problems, []);
  assert.ok(blocks.length >= 17);
});
