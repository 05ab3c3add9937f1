// GB distributors by the MPAN core's first two digits (../shared/upstreams.md section 2: ids 10-23
// are the 14 licence areas in alphabetical PES order, not letter order; 24 and up are independent
// distribution network operators, which have no GSP group of their own).

export interface Distributor {
  distributor_id: string;
  /** Licensee or operator name; null for an independent operator the sources do not name. */
  name: string | null;
  /** Operator group trading today; null when not a licence-area DNO. */
  operator: string | null;
  /** GSP group letter (A-P without I and O); null for independent operators. */
  gsp_group: string | null;
  /** Elexon market participant id; null when the sources do not give it. */
  mpid: string | null;
  kind: 'dno' | 'idno';
}

const dno = (id: string, gsp: string, mpid: string, name: string, operator: string): Distributor => ({
  distributor_id: id,
  name,
  operator,
  gsp_group: gsp,
  mpid,
  kind: 'dno',
});

const DNOS: Distributor[] = [
  dno('10', 'A', 'EELC', 'Eastern Power Networks plc', 'UK Power Networks'),
  dno('11', 'B', 'EMEB', 'National Grid Electricity Distribution (East Midlands) plc', 'National Grid Electricity Distribution'),
  dno('12', 'C', 'LOND', 'London Power Networks plc', 'UK Power Networks'),
  dno('13', 'D', 'MANW', 'SP Manweb plc', 'SP Energy Networks'),
  dno('14', 'E', 'MIDE', 'National Grid Electricity Distribution (West Midlands) plc', 'National Grid Electricity Distribution'),
  dno('15', 'F', 'NEEB', 'Northern Powergrid (Northeast)', 'Northern Powergrid'),
  dno('16', 'G', 'NORW', 'Electricity North West Limited', 'Electricity North West'),
  dno('17', 'P', 'HYDE', 'Scottish Hydro Electric Power Distribution plc', 'SSEN'),
  dno('18', 'N', 'SPOW', 'SP Distribution', 'SP Energy Networks'),
  dno('19', 'J', 'SEEB', 'South Eastern Power Networks plc', 'UK Power Networks'),
  dno('20', 'H', 'SOUT', 'Southern Electric Power Distribution plc', 'SSEN'),
  dno('21', 'K', 'SWAE', 'National Grid Electricity Distribution (South Wales) plc', 'National Grid Electricity Distribution'),
  dno('22', 'L', 'SWEB', 'National Grid Electricity Distribution (South West) plc', 'National Grid Electricity Distribution'),
  dno('23', 'M', 'YELG', 'Northern Powergrid (Yorkshire) plc', 'Northern Powergrid'),
];

/** Independent operators the sources name (upstreams.md section 2, from limejump/mpan `IDNOS`). */
const IDNO_NAMES: Record<string, { name: string; mpid: string }> = {
  '24': { name: 'Envoy', mpid: 'IPNL' },
  '25': { name: 'ESP', mpid: 'LENG' },
  '26': { name: 'Last Mile', mpid: 'GUCL' },
  '27': { name: 'GTC', mpid: 'ETCL' },
  '28': { name: 'UKPN IDNO', mpid: 'EDFI' },
  '36': { name: 'Vattenfall', mpid: 'VATT' },
};

const BY_ID = new Map(DNOS.map((d) => [d.distributor_id, d]));

/** The distributor of a two-digit id: a DNO (10-23), an independent operator (24-99), else null. */
export function distributorOf(id: string): Distributor | null {
  const known = BY_ID.get(id);
  if (known) return known;
  if (!/^\d{2}$/.test(id) || Number(id) < 24) return null;
  const idno = IDNO_NAMES[id];
  return { distributor_id: id, name: idno?.name ?? null, operator: null, gsp_group: null, mpid: idno?.mpid ?? null, kind: 'idno' };
}
