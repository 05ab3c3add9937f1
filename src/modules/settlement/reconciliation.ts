// Reconciliation of receipts against each other (decision 0113): per site, asset and direction,
// how much energy was receipted, how much of the span the periods cover, and which receipts
// overlap an earlier one (the same delivery possibly receipted twice). Only stored receipts are
// read: the telemetry module offers no metered energy per period, and power samples integrated
// here would be a calculation, not a measurement, so nothing is compared with telemetry.
import { isoTime } from '../../platform/schema-kit.ts';
import type { ReconRow } from './store.ts';
import { kwhText } from '../../kit/decimal.ts';

export const RECONCILIATION_METHOD =
  'Sums, period coverage and overlaps of the organisation’s stored settlement receipts per site, asset and direction ' +
  'whose period starts in the window; no telemetry is read and no money is computed.';

export const MAX_OVERLAP_IDS = 20;

export interface ReconLine {
  site_id: string;
  asset_id: string;
  direction: string;
  receipts: number;
  receipted_wh: string;
  receipted_kwh: string;
  first_period_start: string;
  last_period_end: string;
  covered_seconds: number;
  uncovered_seconds: number;
  overlapping_receipts: number;
  overlapping_receipt_ids: string[];
  shared_receipts: number;
  findings: ('overlap' | 'gap')[];
}

const iso = (ms: number) => isoTime(ms);

/** Rows must come ordered by site, asset, direction and period start. */
export function reconcile(rows: ReconRow[]): ReconLine[] {
  const lines: ReconLine[] = [];
  let cur: (ReconLine & { wh: bigint; reach: number; covered: number; start: number }) | null = null;
  const close = () => {
    if (!cur) return;
    const { wh, reach, covered, start, ...line } = cur;
    line.receipted_wh = wh.toString();
    line.receipted_kwh = kwhText(wh);
    line.last_period_end = iso(reach);
    line.covered_seconds = covered / 1000;
    line.uncovered_seconds = (reach - start - covered) / 1000;
    if (line.overlapping_receipts) line.findings.push('overlap');
    if (line.uncovered_seconds > 0) line.findings.push('gap');
    lines.push(line);
  };
  for (const r of rows) {
    const s = new Date(r.period_start).getTime();
    const e = new Date(r.period_end).getTime();
    if (!cur || cur.site_id !== r.site_id || cur.asset_id !== r.asset_id || cur.direction !== r.direction) {
      close();
      cur = {
        site_id: r.site_id,
        asset_id: r.asset_id,
        direction: r.direction,
        receipts: 0,
        receipted_wh: '',
        receipted_kwh: '',
        first_period_start: iso(s),
        last_period_end: '',
        covered_seconds: 0,
        uncovered_seconds: 0,
        overlapping_receipts: 0,
        overlapping_receipt_ids: [],
        shared_receipts: 0,
        findings: [],
        wh: 0n,
        reach: s,
        covered: 0,
        start: s,
      };
    }
    cur.receipts++;
    cur.wh += BigInt(r.delivered_wh);
    if (r.shared) cur.shared_receipts++;
    // Sorted by start: a period starting before the furthest end so far overlaps an earlier one.
    if (s < cur.reach && cur.receipts > 1) {
      cur.overlapping_receipts++;
      if (cur.overlapping_receipt_ids.length < MAX_OVERLAP_IDS) cur.overlapping_receipt_ids.push(r.receipt_id);
    }
    cur.covered += Math.max(0, e - Math.max(s, cur.reach));
    cur.reach = Math.max(cur.reach, e);
  }
  close();
  return lines;
}
