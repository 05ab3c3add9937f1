// Domain events the registry publishes (durable, in the write's own transaction; platform/jobs.ts
// `publish`). Another module subscribes with `background.subscriptions: [{ topic, kind }]`.

/**
 * Assets of these sites were added, removed, moved, re-parented or re-classed: how their readings
 * are counted may have changed. Payload `{ site_ids: string[], asset_ids: string[], topic }`; the
 * job's organisation is the assets' own.
 */
export const ASSETS_CHANGED = 'registry.assets.changed';

export interface AssetsChangedPayload {
  site_ids: string[];
  asset_ids: string[];
}
