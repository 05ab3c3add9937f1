// Site templates (the built-in GB shapes and an organisation's own) and the device-mapping
// proposal: which reporting device fills which slot, why, and with what confidence. Pure functions.
import { CLASS_RULES, classOfType, isAssetClass, ASSET_ID_PATTERN, type AssetClass } from '../registry/index.ts';

export interface Slot {
  /** Name of the slot within the template (`pv_inverter`). */
  slot: string;
  asset_class: AssetClass;
  /** Free-form type the asset is registered with (defaults to the class). */
  type: string;
  name: string;
  /** A slot earlier in the template this asset sits under in the single-line tree. */
  parent_slot: string | null;
  /** A required slot must be mapped to a device before the mapping can be confirmed. */
  required: boolean;
  /** Words that, found in a device id or name, suggest it fills this slot. */
  keywords: string[];
}

export interface Template {
  template_id: string;
  name: string;
  description: string;
  built_in: boolean;
  slots: Slot[];
}

const METER_WORDS = ['meter', 'smart', 'grid', 'em', 'ct'];
const PV_WORDS = ['pv', 'solar', 'inverter', 'inv'];
const BATTERY_WORDS = ['battery', 'batt', 'bat', 'storage', 'bess'];
const CHARGER_WORDS = ['charger', 'evse', 'cp', 'ev', 'wallbox'];

const slot = (s: Partial<Slot> & Pick<Slot, 'slot' | 'asset_class' | 'name' | 'keywords'>): Slot => ({
  type: s.asset_class,
  parent_slot: null,
  required: true,
  ...s,
});

export const BUILT_IN_TEMPLATES: readonly Template[] = [
  {
    template_id: 'gb-home-pv-battery',
    name: 'Home with solar PV and battery',
    description: 'A GB home: supplier smart meter at the connection, a PV (or hybrid) inverter under it, a battery DC-coupled under the inverter.',
    built_in: true,
    slots: [
      slot({ slot: 'meter', asset_class: 'smart_meter', name: 'Smart meter', keywords: METER_WORDS }),
      slot({ slot: 'pv_inverter', asset_class: 'inverter', type: 'solar_inverter', name: 'PV inverter', parent_slot: 'meter', keywords: PV_WORDS }),
      slot({ slot: 'battery', asset_class: 'battery', name: 'Home battery', parent_slot: 'pv_inverter', keywords: BATTERY_WORDS }),
    ],
  },
  {
    template_id: 'gb-home-heat-pump',
    name: 'Home with heat pump',
    description: 'A GB home: supplier smart meter at the connection and an air- or ground-source heat pump under it.',
    built_in: true,
    slots: [
      slot({ slot: 'meter', asset_class: 'smart_meter', name: 'Smart meter', keywords: METER_WORDS }),
      slot({
        slot: 'heat_pump',
        asset_class: 'heat_pump',
        name: 'Heat pump',
        parent_slot: 'meter',
        keywords: ['heatpump', 'heat-pump', 'heat_pump', 'hp', 'ashp', 'gshp'],
      }),
    ],
  },
  {
    template_id: 'gb-small-commercial-pv',
    name: 'Small commercial site with solar PV',
    description: 'A small commercial GB site: site meter at the connection, a PV inverter and a building-load sub-meter under it.',
    built_in: true,
    slots: [
      slot({ slot: 'meter', asset_class: 'site_meter', name: 'Site meter', keywords: METER_WORDS }),
      slot({ slot: 'pv_inverter', asset_class: 'inverter', type: 'solar_inverter', name: 'PV inverter', parent_slot: 'meter', keywords: PV_WORDS }),
      slot({
        slot: 'building',
        asset_class: 'sub_meter',
        name: 'Building load',
        parent_slot: 'meter',
        required: false,
        keywords: ['sub', 'load', 'building', 'board', 'db'],
      }),
    ],
  },
  {
    template_id: 'gb-depot-chargers',
    name: 'Depot with EV chargers',
    description: 'A GB fleet depot: site meter at the connection and up to four EV charge points under it (the first required).',
    built_in: true,
    slots: [
      slot({ slot: 'meter', asset_class: 'site_meter', name: 'Site meter', keywords: METER_WORDS }),
      ...[1, 2, 3, 4].map((n) =>
        slot({ slot: `charger_${n}`, asset_class: 'charger', name: `Charger ${n}`, parent_slot: 'meter', required: n === 1, keywords: CHARGER_WORDS }),
      ),
    ],
  },
];

export const isBuiltInId = (id: string) => id.startsWith('gb-');

/** Why a template body cannot be used (null when it can). */
export function templateRefusal(slots: readonly Slot[]): { index: number; field: keyof Slot; message: string } | null {
  const seen = new Map<string, AssetClass>();
  for (let i = 0; i < slots.length; i++) {
    const s = slots[i];
    if (seen.has(s.slot)) return { index: i, field: 'slot', message: `Slot name '${s.slot}' is used twice` };
    if (s.parent_slot !== null) {
      const parent = seen.get(s.parent_slot);
      if (!parent) return { index: i, field: 'parent_slot', message: `Parent slot '${s.parent_slot}' must be a slot listed before this one` };
      const allowed = CLASS_RULES[s.asset_class].allowedParents;
      if (!allowed.includes(parent)) {
        return {
          index: i,
          field: 'parent_slot',
          message: allowed.length
            ? `A ${s.asset_class} may sit only under ${allowed.join(', ')}; ${parent} is not allowed`
            : `A ${s.asset_class} is the top of the tree and takes no parent`,
        };
      }
    }
    seen.set(s.slot, s.asset_class);
  }
  return null;
}

const ASSET_ID_RE = new RegExp(ASSET_ID_PATTERN);

/** The asset id a slot's placeholder gets at a site: `<site>.<slot>`, the site made safe for an id. */
export function placeholderId(siteId: string, slotName: string): string {
  const safe = siteId.replace(/[^A-Za-z0-9._:@+-]/g, '-').replace(/^[^A-Za-z0-9]+/, '') || 'site';
  const id = `${safe.slice(0, 127 - slotName.length - 1)}.${slotName}`;
  return ASSET_ID_RE.test(id) ? id : `site.${slotName}`;
}

// ---------------------------------------------------------------------------------------------
// The proposal.

export interface Device {
  asset_id: string;
  site_ref: string | null;
  last_ts: string;
  raw: Record<string, unknown>;
}

export type ConfidenceLevel = 'high' | 'medium' | 'low' | 'none';

export interface ProposalEntry {
  slot: string;
  asset_id: string;
  asset_class: AssetClass;
  required: boolean;
  device_id: string | null;
  confidence: number;
  confidence_level: ConfidenceLevel;
  reasons: string[];
}

export interface Proposal {
  entries: ProposalEntry[];
  /** Devices naming this site that no slot took, with why. */
  unassigned_devices: { device_id: string; reason: string }[];
}

export const PROPOSAL_METHOD =
  'Each unregistered device that reports telemetry and names this site in raw site_ref (or names no site) is scored against each slot: ' +
  "site_ref naming the site 0.5, a declared type of the slot's class 0.35, a slot keyword in the device id or name 0.15, soc_pct reported for a battery 0.1; " +
  'a declared type of another class rules the device out, and a device needs type or name evidence. Highest scores are assigned first, one device per slot. ' +
  'Confidence: high from 0.85, medium from 0.6, low below.';

const W_SITE = 0.5;
const W_TYPE = 0.35;
const W_NAME = 0.15;
const W_SOC = 0.1;

function declaredClass(raw: Record<string, unknown>): { cls: AssetClass | null; said: string | null } {
  if (isAssetClass(raw.asset_class)) return { cls: raw.asset_class, said: raw.asset_class };
  for (const k of ['asset_type', 'type', 'device_type']) {
    const v = raw[k];
    if (typeof v === 'string' && v.trim()) return { cls: classOfType(v.trim()), said: v.trim() };
  }
  return { cls: null, said: null };
}

function words(s: string): string[] {
  return s
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

/** Site and smart meters stand for one another in a proposal (installers name them loosely). */
const GRID_METERS: readonly string[] = ['site_meter', 'smart_meter'];
const sameClass = (a: AssetClass, b: AssetClass) => a === b || (GRID_METERS.includes(a) && GRID_METERS.includes(b));

function score(s: Slot, d: Device, siteId: string): { score: number; reasons: string[] } | null {
  const reasons: string[] = [];
  let total = 0;
  let evidence = false;
  const { cls, said } = declaredClass(d.raw);
  if (cls && !sameClass(cls, s.asset_class)) return null;
  if (d.site_ref === siteId) {
    total += W_SITE;
    reasons.push(`raw site_ref '${siteId}' names this site`);
  } else {
    reasons.push('no site_ref in raw: the device names no site');
  }
  if (cls && sameClass(cls, s.asset_class)) {
    total += W_TYPE;
    evidence = true;
    reasons.push(`declared type '${said}' is a ${s.asset_class}`);
  }
  const name = typeof d.raw.name === 'string' ? d.raw.name : '';
  const idWords = new Set([...words(d.asset_id), ...words(name)]);
  const compact = `${d.asset_id} ${name}`.toLowerCase();
  const hit = s.keywords.find((k) => idWords.has(k.toLowerCase()) || (k.length >= 4 && compact.includes(k.toLowerCase())));
  if (hit) {
    total += W_NAME;
    evidence = true;
    reasons.push(`device id or name contains '${hit}'`);
  }
  if ((s.asset_class === 'battery' || s.asset_class === 'vehicle') && typeof d.raw.soc_pct === 'number') {
    total += W_SOC;
    reasons.push('reports soc_pct');
  }
  if (!evidence) return null;
  return { score: Math.min(1, Math.round(total * 100) / 100), reasons };
}

export const levelOf = (c: number): ConfidenceLevel => (c >= 0.85 ? 'high' : c >= 0.6 ? 'medium' : c > 0 ? 'low' : 'none');

export function propose(slots: readonly { slot: Slot; asset_id: string }[], siteId: string, devices: readonly Device[]): Proposal {
  const candidates = devices.filter((d) => d.site_ref === siteId || !d.site_ref);
  const pairs: { si: number; d: Device; score: number; reasons: string[] }[] = [];
  slots.forEach(({ slot: s }, si) => {
    for (const d of candidates) {
      const r = score(s, d, siteId);
      if (r && r.score >= 0.3) pairs.push({ si, d, ...r });
    }
  });
  pairs.sort((a, b) => b.score - a.score || a.si - b.si || a.d.asset_id.localeCompare(b.d.asset_id));
  const bySlot = new Map<number, (typeof pairs)[number]>();
  const taken = new Set<string>();
  for (const p of pairs) {
    if (bySlot.has(p.si) || taken.has(p.d.asset_id)) continue;
    bySlot.set(p.si, p);
    taken.add(p.d.asset_id);
  }
  const entries = slots.map(({ slot: s, asset_id }, si): ProposalEntry => {
    const p = bySlot.get(si);
    return {
      slot: s.slot,
      asset_id,
      asset_class: s.asset_class,
      required: s.required,
      device_id: p?.d.asset_id ?? null,
      confidence: p?.score ?? 0,
      confidence_level: levelOf(p?.score ?? 0),
      reasons: p ? p.reasons : ['no reporting device matched this slot'],
    };
  });
  const unassigned = candidates
    .filter((d) => d.site_ref === siteId && !taken.has(d.asset_id))
    .map((d) => {
      const { cls, said } = declaredClass(d.raw);
      const fits = slots.some(({ slot: s }) => !cls || sameClass(cls, s.asset_class));
      return {
        device_id: d.asset_id,
        reason: !fits
          ? `declared type '${said}' fits no slot of this template`
          : 'a slot it could fill went to a better-scoring device, or no type or name evidence ties it to a slot',
      };
    });
  return { entries, unassigned_devices: unassigned };
}
