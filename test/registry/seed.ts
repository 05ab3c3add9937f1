// Test data for the registry and device tests: assets and telemetry through the API
// (POST /api/twin/registry/assets, POST /api/telemetry/ingest).
import assert from 'node:assert/strict';
import { json, type TestService } from '../helpers/service.ts';
import type { ManualClock } from '../../src/platform/clock.ts';

export type Rec = Record<string, unknown> & { asset_id: string; ts: string };

export function auth(token: string) {
  return { authorization: `Bearer ${token}` };
}

export function clockOf(svc: TestService): ManualClock {
  return svc.clock as ManualClock;
}

export async function register(svc: TestService, token: string, body: Record<string, unknown>) {
  const res = await svc.request({ method: 'POST', url: '/api/twin/registry/assets', headers: auth(token), payload: body });
  assert.equal(res.statusCode, 201, res.body);
  return json(res);
}

/** Sends records through ingestion; every one must be stored. */
export async function ingest(svc: TestService, token: string, records: Rec[]) {
  const res = await svc.request({ method: 'POST', url: '/api/telemetry/ingest', headers: auth(token), payload: records });
  assert.equal(res.statusCode, 200, res.body);
  assert.equal(json(res).stored, records.length, res.body);
}

/** ISO time `minutes` before the service clock. */
export function ago(svc: TestService, minutes: number): string {
  return new Date(svc.clock.now().getTime() - minutes * 60_000).toISOString();
}
