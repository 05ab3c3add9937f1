// Reads the asset registry (table `assets`, migration 0300) for the portfolio. Organisation first.
import type { Queryable } from '../../infra/db/index.ts';

export interface FleetAsset {
  asset_id: string;
  site_id: string;
  type: string;
  details: Record<string, unknown> | null;
}

export async function listFleetAssets(q: Queryable, orgId: string): Promise<FleetAsset[]> {
  const r = await q.query<FleetAsset>(
    'select asset_id, site_id, type, details from assets where org_id = $1 order by asset_id',
    [orgId],
  );
  return r.rows;
}
