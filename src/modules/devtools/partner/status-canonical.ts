// status_canonical of a telemetry reading (concepts.md, Partner API telemetry reading): one of a
// fixed set, mapped from whatever free text the source used; where the text says nothing, the
// sign of power_kw decides (positive = import or charge, negative = export, generation or
// discharge), refined by the asset type when it is known.
export const CANONICAL_STATUSES = ['charging', 'discharging', 'producing', 'importing', 'exporting', 'idle', 'online', 'offline', 'fault', 'unknown'] as const;
export type CanonicalStatus = (typeof CANONICAL_STATUSES)[number];

const WORDS: [RegExp, CanonicalStatus][] = [
  [/^(fault(ed|y)?|error|err|alarm|fail(ed|ure)?|trip(ped)?|broken|emergency.*)$/, 'fault'],
  [/^(offline|disconnected|unreachable|unavailable|no[ _-]?comms?|lost|down|not[ _-]?connected)$/, 'offline'],
  [/^(discharg(e|ing)|dischg)$/, 'discharging'],
  [/^(charg(e|ing)|chg|suspendedev|suspended[ _-]?ev)$/, 'charging'],
  [/^(produc(e|ing|tion)|generat(e|ing|ion)|mppt|feeding|feed[ _-]?in)$/, 'producing'],
  [/^(import(ing)?|consum(e|ing|ption))$/, 'importing'],
  [/^(export(ing)?)$/, 'exporting'],
  [/^(idle|standby|stand[ _-]?by|sleep(ing)?|available|finishing|preparing|paused|off|stopped)$/, 'idle'],
  [/^(online|ok|normal|running|on|connected|active|operational|healthy|occupied)$/, 'online'],
  [/^(unknown|n\/a|na|none|null|)$/, 'unknown'],
];

function fromSign(powerKw: number | null | undefined, assetType?: string | null): CanonicalStatus {
  if (powerKw === null || powerKw === undefined || !Number.isFinite(powerKw)) return 'unknown';
  if (Math.abs(powerKw) < 1e-6) return 'idle';
  const t = (assetType ?? '').toLowerCase();
  if (/batter|storage|bess/.test(t)) return powerKw > 0 ? 'charging' : 'discharging';
  if (/solar|pv|inverter|generat|wind/.test(t)) return powerKw < 0 ? 'producing' : 'importing';
  // `ev` as a word of the type (ev, ev_charger, EV charger), not inside another (device, revenue_meter).
  if (/charger|evse|vehicle|(^|[^a-z])ev([^a-z]|$)/.test(t) && powerKw > 0) return 'charging';
  return powerKw > 0 ? 'importing' : 'exporting';
}

export function canonicalStatus(status: string | null | undefined, powerKw?: number | null, assetType?: string | null): CanonicalStatus {
  const s = (status ?? '').trim().toLowerCase().replace(/\s+/g, ' ');
  for (const [re, canonical] of WORDS) {
    if (re.test(s)) return canonical === 'unknown' ? fromSign(powerKw, assetType) : canonical;
  }
  return fromSign(powerKw, assetType);
}
