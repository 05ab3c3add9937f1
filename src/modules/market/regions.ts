// The 14 GSP groups (grid supply point regions), letters A to P without I and O.
// Facts from upstreams.md section 2: region names as the tariff provider uses them, the
// distributor (MPAN) id, the DNO licensee and its current operator group, and the carbon
// intensity API's region id.

export interface GspRegion {
  letter: string;
  name: string;
  gsp_group_id: string;
  distributor_id: number;
  dno_licensee: string;
  distribution_operator: string;
  carbon_region_id: number;
}

export const REGIONS: readonly GspRegion[] = [
  ['A', 'Eastern England', 10, 'Eastern Power Networks plc', 'UK Power Networks', 10],
  ['B', 'East Midlands', 11, 'National Grid Electricity Distribution (East Midlands) plc', 'National Grid Electricity Distribution', 9],
  ['C', 'London', 12, 'London Power Networks plc', 'UK Power Networks', 13],
  ['D', 'Merseyside and Northern Wales', 13, 'SP Manweb plc', 'SP Energy Networks', 6],
  ['E', 'West Midlands', 14, 'National Grid Electricity Distribution (West Midlands) plc', 'National Grid Electricity Distribution', 8],
  ['F', 'North Eastern England', 15, 'Northern Powergrid (Northeast) Ltd', 'Northern Powergrid', 4],
  ['G', 'North Western England', 16, 'Electricity North West Limited', 'Electricity North West', 3],
  ['H', 'Southern England', 20, 'Southern Electric Power Distribution plc', 'Scottish and Southern Electricity Networks', 12],
  ['J', 'South Eastern England', 19, 'South Eastern Power Networks plc', 'UK Power Networks', 14],
  ['K', 'Southern Wales', 21, 'National Grid Electricity Distribution (South Wales) plc', 'National Grid Electricity Distribution', 7],
  ['L', 'South Western England', 22, 'National Grid Electricity Distribution (South West) plc', 'National Grid Electricity Distribution', 11],
  ['M', 'Yorkshire', 23, 'Northern Powergrid (Yorkshire) plc', 'Northern Powergrid', 5],
  ['N', 'Southern Scotland', 18, 'SP Distribution plc', 'SP Energy Networks', 2],
  ['P', 'Northern Scotland', 17, 'Scottish Hydro Electric Power Distribution plc', 'Scottish and Southern Electricity Networks', 1],
].map(([letter, name, distributor_id, dno_licensee, distribution_operator, carbon_region_id]) => ({
  letter: letter as string,
  name: name as string,
  gsp_group_id: `_${letter}`,
  distributor_id: distributor_id as number,
  dno_licensee: dno_licensee as string,
  distribution_operator: distribution_operator as string,
  carbon_region_id: carbon_region_id as number,
}));

export const REGION_LETTERS: string[] = REGIONS.map((r) => r.letter);
export const DEFAULT_REGION = 'C';

export function regionOf(letter: string): GspRegion | undefined {
  return REGIONS.find((r) => r.letter === letter);
}
