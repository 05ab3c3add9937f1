// The shapes EMS alerts and admin answers carry.
import { isoTime, isoTimeOrNull } from '../../platform/schema-kit.ts';
import type { AlertView } from '../alerts/index.ts';
import { poundsText } from '../../kit/decimal.ts';
import type { AdminStateRow, EmsAlertRow } from './store.ts';

export interface EmsAlertOut {
  id: string;
  source: string;
  severity: string;
  status: 'open' | 'resolved';
  title: string;
  site_id: string | null;
  asset_id: string | null;
  since: string;
  raised_at: string;
  evaluated_at: string;
  evidence: Record<string, unknown>;
  impact_gbp_per_day: string;
  impact_method: string;
  acknowledged_at: string | null;
  acknowledged_by: string | null;
  assigned_to: string | null;
  /** For ranking; not serialised. */
  impact_pence: bigint;
}

export function emsAlertOut(a: AlertView, e: EmsAlertRow, s: AdminStateRow | undefined): EmsAlertOut {
  const impact = BigInt(e.impact_pence);
  return {
    id: a.id,
    source: e.source,
    severity: e.severity,
    status: a.status,
    title: a.title,
    site_id: e.site_id,
    asset_id: e.asset_id,
    since: isoTime(e.since),
    raised_at: a.raised_at,
    evaluated_at: isoTime(e.evaluated_at),
    evidence: e.evidence,
    impact_gbp_per_day: poundsText(impact),
    impact_method: e.method,
    acknowledged_at: isoTimeOrNull(s?.acknowledged_at),
    acknowledged_by: s?.acknowledged_by ?? null,
    assigned_to: s?.assigned_to ?? null,
    impact_pence: impact,
  };
}

export function adminView(a: AlertView & { org_id?: string }, s: AdminStateRow | undefined) {
  return {
    ...a,
    acknowledged_at: isoTimeOrNull(s?.acknowledged_at),
    acknowledged_by: s?.acknowledged_by ?? null,
    assigned_to: s?.assigned_to ?? null,
    assigned_by: s?.assigned_by ?? null,
    assigned_at: isoTimeOrNull(s?.assigned_at),
    resolved_by: s?.resolved_by ?? null,
    resolution_reason: s?.resolution_reason ?? null,
  };
}
