// The benchmark's records: deterministic, so the API run, the COPY load and the direct insert
// write the same rows. 1,000 assets behind 20 gateways of 50 assets; a gateway sends a batch of
// 500 records = 10 readings (5 s apart) of each of its 50 assets, and consecutive batches come
// from different gateways (as a fleet of senders does). `interleaved` instead spreads every batch
// over all 1,000 assets, so concurrent batches update the same telemetry_latest rows (worst case).
export interface BenchRecord {
  asset_id: string;
  ts: string;
  power_kw: number;
  soc_pct: number;
  voltage: number;
  status: string;
  site_ref: string;
}

export type Mix = 'gateways' | 'interleaved';

export const ASSETS = 1000;
const GATEWAYS = 20;
const PER_GATEWAY = ASSETS / GATEWAYS;

export function makeRecord(k: number, t0: number, mix: Mix = 'gateways', batch = 500): BenchRecord {
  let asset: number;
  let reading: number;
  if (mix === 'interleaved') {
    asset = k % ASSETS;
    reading = Math.floor(k / ASSETS);
  } else {
    const b = Math.floor(k / batch);
    const i = k % batch;
    const perBatch = batch / PER_GATEWAY;
    asset = (b % GATEWAYS) * PER_GATEWAY + (i % PER_GATEWAY);
    reading = Math.floor(b / GATEWAYS) * perBatch + Math.floor(i / PER_GATEWAY);
  }
  return {
    asset_id: `asset-${asset}`,
    ts: new Date(t0 + reading * 5000).toISOString(),
    power_kw: Math.round(Math.sin(k / 97) * 5000) / 1000,
    soc_pct: (k * 7) % 101,
    voltage: 228 + (k % 50) / 10,
    status: k % 3 === 0 ? 'charging' : 'idle',
    site_ref: `site-${asset % 50}`,
  };
}

/** The JSON body of batch b (records offset + b*size .. + size - 1). */
export function batchBody(b: number, size: number, t0: number, offset = 0, mix: Mix = 'gateways'): string {
  const out: BenchRecord[] = new Array(size);
  for (let i = 0; i < size; i++) out[i] = makeRecord(offset + b * size + i, t0, mix, size);
  return JSON.stringify(out);
}
