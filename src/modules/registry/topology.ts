// The single-line tree of one site and its validation findings. Pure: takes the site's assets.
import { ASSET_CLASSES, CLASS_RULES, isAssetClass, type AssetClass } from './vocabulary.ts';

export interface TopoAsset {
  asset_id: string;
  parent_asset_id: string | null;
  asset_class: string | null;
  name: string;
  type: string;
}

export type FindingCode = 'missing_meter' | 'unclassified' | 'orphan' | 'disallowed_parent' | 'cycle';

export interface Finding {
  code: FindingCode;
  severity: 'error' | 'warning';
  asset_id: string | null;
  message: string;
}

export interface TopoLine<A extends TopoAsset> {
  asset: A;
  depth: number;
  children: string[];
}

export const FINDING_DESCRIPTIONS: Record<FindingCode, { severity: 'error' | 'warning'; description: string }> = {
  missing_meter: { severity: 'warning', description: 'The site has no site_meter or smart_meter.' },
  unclassified: { severity: 'warning', description: 'The asset has no class, so its place in the tree cannot be checked.' },
  orphan: {
    severity: 'error',
    description: 'The asset has no parent though its class needs one, or its parent is not registered at this site.',
  },
  disallowed_parent: { severity: 'error', description: "The parent's class is not an allowed parent for the asset's class." },
  cycle: { severity: 'error', description: 'Following parents from the asset leads back to it.' },
};

function finding(code: FindingCode, asset_id: string | null, message: string): Finding {
  return { code, severity: FINDING_DESCRIPTIONS[code].severity, asset_id, message };
}

const rank = (c: string | null) => (isAssetClass(c) ? ASSET_CLASSES.indexOf(c) : ASSET_CLASSES.length);

function order<A extends TopoAsset>(a: A, b: A): number {
  return rank(a.asset_class) - rank(b.asset_class) || a.name.localeCompare(b.name) || a.asset_id.localeCompare(b.asset_id);
}

/** Ids of assets that lie on a parent cycle. */
export function cycleMembers(assets: TopoAsset[]): Set<string> {
  const byId = new Map(assets.map((a) => [a.asset_id, a]));
  const inCycle = new Set<string>();
  for (const a of assets) {
    const seen = new Set<string>();
    let cur: TopoAsset | undefined = a;
    while (cur && cur.parent_asset_id && !seen.has(cur.asset_id)) {
      seen.add(cur.asset_id);
      cur = byId.get(cur.parent_asset_id);
    }
    if (cur && cur.asset_id === a.asset_id && seen.size > 0) inCycle.add(a.asset_id);
  }
  return inCycle;
}

/** Findings for a site's assets, in tree order of the assets they concern. */
export function findingsOf(assets: TopoAsset[]): Finding[] {
  const byId = new Map(assets.map((a) => [a.asset_id, a]));
  const out: Finding[] = [];
  if (assets.length > 0 && !assets.some((a) => isAssetClass(a.asset_class) && CLASS_RULES[a.asset_class].meter)) {
    out.push(finding('missing_meter', null, 'No site_meter or smart_meter is registered at this site.'));
  }
  const cycles = cycleMembers(assets);
  for (const a of [...assets].sort(order)) {
    const cls = isAssetClass(a.asset_class) ? a.asset_class : null;
    if (!cls) out.push(finding('unclassified', a.asset_id, `Asset ${a.asset_id} (type '${a.type}') has no class.`));
    if (cycles.has(a.asset_id)) {
      out.push(finding('cycle', a.asset_id, `Asset ${a.asset_id} is its own ancestor.`));
      continue;
    }
    if (!a.parent_asset_id) {
      if (cls && !CLASS_RULES[cls].rootAllowed) {
        out.push(finding('orphan', a.asset_id, `Asset ${a.asset_id} (${cls}) has no parent; allowed parents: ${CLASS_RULES[cls].allowedParents.join(', ')}.`));
      }
      continue;
    }
    const parent = byId.get(a.parent_asset_id);
    if (!parent) {
      out.push(finding('orphan', a.asset_id, `Parent ${a.parent_asset_id} of asset ${a.asset_id} is not registered at this site.`));
      continue;
    }
    const pcls = isAssetClass(parent.asset_class) ? parent.asset_class : null;
    if (cls && pcls && !CLASS_RULES[cls].allowedParents.includes(pcls)) {
      out.push(
        finding(
          'disallowed_parent',
          a.asset_id,
          `A ${cls} may not sit under a ${pcls} (${parent.asset_id}); allowed parents: ${CLASS_RULES[cls].allowedParents.join(', ') || 'none'}.`,
        ),
      );
    }
  }
  return out;
}

/**
 * Depth-first lines of the tree: roots (no parent, or a parent not at the site) first, each
 * followed by its descendants; assets on a cycle (and what hangs below them) come last, each cycle
 * entered at its smallest id. Every asset appears exactly once.
 */
export function linesOf<A extends TopoAsset>(assets: A[]): TopoLine<A>[] {
  const byId = new Map(assets.map((a) => [a.asset_id, a]));
  const kids = new Map<string, A[]>();
  for (const a of assets) {
    if (a.parent_asset_id && byId.has(a.parent_asset_id) && a.parent_asset_id !== a.asset_id) {
      const list = kids.get(a.parent_asset_id) ?? [];
      list.push(a);
      kids.set(a.parent_asset_id, list);
    }
  }
  for (const list of kids.values()) list.sort(order);
  const out: TopoLine<A>[] = [];
  const placed = new Set<string>();
  const walk = (a: A, depth: number) => {
    if (placed.has(a.asset_id)) return;
    placed.add(a.asset_id);
    const children = (kids.get(a.asset_id) ?? []).filter((c) => !placed.has(c.asset_id));
    out.push({ asset: a, depth, children: children.map((c) => c.asset_id) });
    for (const c of children) walk(c, depth + 1);
  };
  const roots = assets.filter((a) => !a.parent_asset_id || !byId.has(a.parent_asset_id)).sort(order);
  for (const r of roots) walk(r, 0);
  const rest = assets.filter((a) => !placed.has(a.asset_id)).sort((a, b) => a.asset_id.localeCompare(b.asset_id));
  for (const a of rest) walk(a, 0);
  return out;
}

/** Why a parent is refused for an asset of class `cls`, or null when it is allowed. */
export function parentRefusal(cls: AssetClass | null, parentCls: string | null): string | null {
  if (!cls || !isAssetClass(parentCls)) return null;
  const allowed = CLASS_RULES[cls].allowedParents;
  if (allowed.includes(parentCls)) return null;
  return allowed.length
    ? `A ${cls} may sit only under ${allowed.join(', ')}; ${parentCls} is not allowed`
    : `A ${cls} is the top of the tree and takes no parent`;
}
