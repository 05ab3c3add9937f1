// The Public Charge Point Regulations 2023 (SI 2023/1168) as the hub applies them: the duties with
// their thresholds and commencement dates, reliability from connector status history (reg 7) and
// the compliance findings for a site's charge points.
import type { ChargePointRow, SiteRow, StatusRow } from './store.ts';
import { isoTime } from '../../platform/schema-kit.ts';
import { ukDate } from '../../kit/uk-time.ts';

export const RAPID_KW = 50;
export const RELIABILITY_TARGET = 99;
const LEG = 'https://www.legislation.gov.uk/uksi/2023/1168';
const GUIDANCE = 'https://www.gov.uk/government/publications/the-public-charge-point-regulations-2023-guidance/public-charge-point-regulations-2023-guidance';

export const PCPR = {
  instrument: 'The Public Charge Point Regulations 2023 (SI 2023/1168)',
  in_force: '2023-11-24',
  sources: [LEG, `${LEG}/part/3/made`, GUIDANCE],
};

export const DUTIES = [
  {
    duty: 'pricing_p_per_kwh',
    regulation: 'reg 11',
    requirement: 'The total price is shown in pence per kilowatt-hour, on the charge point or on a device needing no pre-existing contract.',
    applies_to: 'All public charge points',
    threshold: null,
    commences: '2023-11-24',
    source: `${LEG}/regulation/11/made`,
  },
  {
    duty: 'contactless',
    regulation: 'reg 5',
    requirement: 'Contactless payment by payment card, with no pre-existing contract.',
    applies_to: 'New public charge points of 8 kW and above, and all rapid charge points',
    threshold: '8 kW (new); 50 kW (all rapid)',
    commences: '2024-11-24',
    source: `${LEG}/regulation/5/made`,
  },
  {
    duty: 'payment_roaming',
    regulation: 'reg 6',
    requirement: 'Payable through at least one third-party roaming provider.',
    applies_to: 'All public charge points',
    threshold: null,
    commences: '2025-11-24',
    source: `${LEG}/regulation/6/made`,
  },
  {
    duty: 'reliability_99',
    regulation: 'reg 7',
    requirement:
      "The operator's rapid network is reliable 99% of the time on average in each calendar year (reliable: OCPI AVAILABLE, CHARGING or RESERVED; UNKNOWN and BLOCKED excluded; INOPERATIVE and OUTOFORDER unreliable); compliance published on the operator's website.",
    applies_to: 'Rapid charge points (50 kW and above)',
    threshold: '99%',
    commences: '2024-11-24',
    source: `${LEG}/regulation/7/made`,
  },
  {
    duty: 'annual_report',
    regulation: 'reg 8',
    requirement: 'Annual report to the Secretary of State: number of charge points, rapid network reliability and more.',
    applies_to: 'Charge point operators',
    threshold: null,
    commences: '2024-11-24',
    source: `${LEG}/regulation/8/made`,
  },
  {
    duty: 'helpline_24_7',
    regulation: 'reg 9',
    requirement: 'A free, staffed helpline available 24 hours a day, every day, displayed at the site; every contact recorded and reported quarterly.',
    applies_to: 'All public charge points',
    threshold: '24 hours a day, 365 days a year',
    commences: '2024-11-24',
    source: `${LEG}/regulation/9/made`,
  },
  {
    duty: 'open_data',
    regulation: 'reg 10',
    requirement: 'Hold OCPI 2.2.1 location, EVSE and connector data; make reference and availability data public, free, machine-readable and without terms.',
    applies_to: 'All public charge points',
    threshold: null,
    commences: '2024-11-24',
    source: `${LEG}/regulation/10/made`,
  },
];

export const RELIABILITY_METHOD =
  "Rolling 12 months to now. Each connector's OCPP status (1.6 per connector, 2.0.1 per EVSE) holds from its timestamp to the next; it is read in OCPI terms " +
  '(Available -> AVAILABLE; Preparing, Charging, SuspendedEV, SuspendedEVSE, Finishing, Occupied -> CHARGING; Reserved -> RESERVED; Unavailable -> INOPERATIVE; ' +
  'Faulted -> OUTOFORDER; time before the first status and while the charger is not connected -> UNKNOWN). Reliability = reliable / (reliable + unreliable) time; ' +
  "UNKNOWN is excluded as PCPR 2023 reg 7 excludes it. Sites are taken as open 24 hours. The site figure sums the connectors' times.";

export const COMPLIANCE_METHOD =
  "Each PCPR 2023 duty for the site's charge points from what the hub holds: contactless per charge point as registered; pence per kWh from the published " +
  'price schedule in force; 99% reliability per rapid connector over the rolling 12 months (as the reliability operation); the helpline, open data URL and ' +
  'roaming as the site records them. Duties not yet commenced or not applying by power are not_applicable; unrecorded facts are not_known.';

const RELIABLE = new Set(['AVAILABLE', 'CHARGING', 'RESERVED']);
const UNRELIABLE = new Set(['INOPERATIVE', 'OUTOFORDER']);
const HOUR = 3_600_000;
const r2 = (v: number) => Math.round(v * 100) / 100;

interface Times {
  reliable: number;
  unreliable: number;
  excluded: number;
}
const percent = (t: Times) => (t.reliable + t.unreliable > 0 ? Math.floor((t.reliable / (t.reliable + t.unreliable)) * 10_000) / 100 : null);
const figure = (t: Times) => ({
  reliability_percent: percent(t),
  reliable_hours: r2(t.reliable / HOUR),
  unreliable_hours: r2(t.unreliable / HOUR),
  excluded_hours: r2(t.excluded / HOUR),
});

export function reliabilityOf(cps: readonly ChargePointRow[], history: readonly StatusRow[], from: Date, to: Date) {
  const a = from.getTime();
  const b = to.getTime();
  const site: Times = { reliable: 0, unreliable: 0, excluded: 0 };
  const rapidSite: Times = { reliable: 0, unreliable: 0, excluded: 0 };
  const connectors = [];
  // The history grouped once by charge point and connector: the work is linear in its rows however
  // many connector ids a charger has reported.
  const byConnector = new Map<string, Map<number, StatusRow[]>>();
  for (const h of history) {
    if (h.connector_id <= 0) continue;
    let m = byConnector.get(h.charge_point_id);
    if (!m) byConnector.set(h.charge_point_id, (m = new Map()));
    let rows = m.get(h.connector_id);
    if (!rows) m.set(h.connector_id, (rows = []));
    rows.push(h);
  }
  for (const cp of cps) {
    const rapid = Number(cp.max_power_kw) >= RAPID_KW;
    const reported = byConnector.get(cp.charge_point_id) ?? new Map<number, StatusRow[]>();
    const ids = new Set<number>(reported.keys());
    for (let c = 1; c <= cp.connectors; c++) ids.add(c);
    const since = Math.max(a, cp.created_at.getTime());
    for (const id of [...ids].sort((x, y) => x - y)) {
      const rows = reported.get(id) ?? [];
      const t: Times = { reliable: 0, unreliable: 0, excluded: 0 };
      let cursor = since;
      let state = 'UNKNOWN';
      const add = (until: number) => {
        const d = Math.max(0, until - cursor);
        if (RELIABLE.has(state)) t.reliable += d;
        else if (UNRELIABLE.has(state)) t.unreliable += d;
        else t.excluded += d;
      };
      for (const r of rows) {
        const ts = Math.min(b, Math.max(since, r.ts.getTime()));
        add(ts);
        cursor = Math.max(cursor, ts);
        state = r.ocpi_status;
      }
      add(b);
      for (const k of ['reliable', 'unreliable', 'excluded'] as const) {
        site[k] += t[k];
        if (rapid) rapidSite[k] += t[k];
      }
      const pc = percent(t);
      connectors.push({
        charge_point_id: cp.charge_point_id,
        connector_id: id,
        rapid,
        ...figure(t),
        meets_target: rapid && pc !== null ? pc >= RELIABILITY_TARGET : null,
      });
    }
  }
  const rapidPc = percent(rapidSite);
  return {
    from: isoTime(from),
    to: isoTime(to),
    target: {
      percent: RELIABILITY_TARGET,
      applies_to: "Rapid charge points (50 kW and above), averaged over the operator's rapid network in each calendar year",
      source: 'PCPR 2023 reg 7',
    },
    site: { ...figure(site), rapid_reliability_percent: rapidPc, meets_target: rapidPc === null ? null : rapidPc >= RELIABILITY_TARGET },
    connectors,
  };
}

type Result = 'met' | 'not_met' | 'not_known' | 'not_applicable';
interface Finding {
  duty: string;
  regulation: string;
  charge_point_id: string | null;
  applies: boolean;
  result: Result;
  evidence: string;
}

/** Whether a duty has commenced by the UK calendar date of `now`. */
const commenced = (duty: string, now: Date) => ukDate(now.getTime()) >= DUTIES.find((d) => d.duty === duty)!.commences;
const known = (v: boolean | null, yes: string, no: string, unknown: string): [Result, string] =>
  v === null ? ['not_known', unknown] : v ? ['met', yes] : ['not_met', no];

export function complianceOf(input: {
  site: SiteRow;
  cps: readonly ChargePointRow[];
  reliability: ReturnType<typeof reliabilityOf>;
  schedule: { version: number; incVat: string } | null;
  now: Date;
}): Finding[] {
  const { site, cps, reliability, schedule, now } = input;
  const out: Finding[] = [];
  const siteDuty = (duty: string, regulation: string, [result, evidence]: [Result, string]) => {
    const applies = commenced(duty, now);
    out.push({
      duty,
      regulation,
      charge_point_id: null,
      applies,
      result: applies ? result : 'not_applicable',
      evidence: applies ? evidence : `Commences ${DUTIES.find((d) => d.duty === duty)!.commences}`,
    });
  };
  siteDuty(
    'pricing_p_per_kwh',
    'reg 11',
    schedule
      ? ['met', `Published price schedule version ${schedule.version}: ${schedule.incVat} p/kWh inc VAT shown to drivers`]
      : ['not_met', 'No published price schedule: drivers see no price in pence per kWh'],
  );
  for (const cp of cps) {
    const kw = Number(cp.max_power_kw);
    const rapid = kw >= RAPID_KW;
    const applies = commenced('contactless', now) && kw >= 8;
    const [result, evidence] = known(
      cp.contactless,
      'Registered as taking contactless card payment',
      'Registered as not taking contactless card payment',
      'Contactless payment not recorded for this charge point',
    );
    out.push({
      duty: 'contactless',
      regulation: 'reg 5',
      charge_point_id: cp.charge_point_id,
      applies,
      result: applies ? result : 'not_applicable',
      evidence: applies ? `${kw} kW${rapid ? ' (rapid)' : ''}: ${evidence}` : kw < 8 ? `${kw} kW: below 8 kW` : 'Commences 2024-11-24',
    });
    if (rapid) {
      const mine = reliability.connectors.filter((c) => c.charge_point_id === cp.charge_point_id);
      const measured = mine.filter((c) => c.reliability_percent !== null);
      const relApplies = commenced('reliability_99', now);
      let res: Result;
      let ev: string;
      if (!measured.length) {
        res = 'not_known';
        ev = 'No reliable or unreliable time measured in the last 12 months';
      } else {
        const worst = Math.min(...measured.map((c) => c.reliability_percent!));
        res = measured.every((c) => c.reliability_percent! >= RELIABILITY_TARGET) ? 'met' : 'not_met';
        ev = `Rolling 12 months: ${measured.map((c) => `connector ${c.connector_id} ${c.reliability_percent}%`).join(', ')} (lowest ${worst}%, target ${RELIABILITY_TARGET}%)`;
      }
      out.push({
        duty: 'reliability_99',
        regulation: 'reg 7',
        charge_point_id: cp.charge_point_id,
        applies: relApplies,
        result: relApplies ? res : 'not_applicable',
        evidence: relApplies ? ev : 'Commences 2024-11-24',
      });
    }
  }
  if (!cps.some((c) => Number(c.max_power_kw) >= RAPID_KW)) {
    out.push({
      duty: 'reliability_99',
      regulation: 'reg 7',
      charge_point_id: null,
      applies: false,
      result: 'not_applicable',
      evidence: 'No rapid charge points (50 kW and above) at the site',
    });
  }
  const helpline: [Result, string] =
    site.helpline_phone === null
      ? ['not_known', 'No helpline number recorded for the site']
      : site.helpline_24_7 === null
        ? ['not_known', `Helpline ${site.helpline_phone}; whether it is staffed 24/7 is not recorded`]
        : site.helpline_24_7
          ? ['met', `Helpline ${site.helpline_phone}, recorded as staffed 24 hours a day, every day`]
          : ['not_met', `Helpline ${site.helpline_phone} is recorded as not staffed 24/7`];
  siteDuty('helpline_24_7', 'reg 9', helpline);
  siteDuty(
    'open_data',
    'reg 10',
    site.open_data_url ? ['met', `Open data published at ${site.open_data_url}`] : ['not_known', 'No open data URL recorded for the site'],
  );
  siteDuty(
    'payment_roaming',
    'reg 6',
    known(
      site.payment_roaming,
      'Recorded as payable through a roaming provider',
      'Recorded as not payable through any roaming provider',
      'Roaming not recorded for the site',
    ),
  );
  return out;
}
