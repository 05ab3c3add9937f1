// Reading the Prometheus exposition of /api/telemetry/metrics in tests.
import assert from 'node:assert/strict';
import type { TestService } from './service.ts';

export async function scrape(svc: TestService): Promise<string> {
  const res = await svc.request({ method: 'GET', url: '/api/telemetry/metrics' });
  assert.equal(res.statusCode, 200);
  return res.body;
}

/** The value of one sample (labels as Prometheus prints them, in order), or undefined when absent. */
export function sample(body: string, name: string, labels = ''): number | undefined {
  const line = body.split('\n').find((l) => l.startsWith(`${name}${labels ? `{${labels}}` : ''} `));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}
