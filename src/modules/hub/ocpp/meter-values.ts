// A meterValue as the hub reads it, from either version's message (the generated types say what
// each carries: 1.6 a string value and `unit`, 2.0.1 a number and `unitOfMeasure`).
import type { MeterValue as MeterValue16 } from './generated/v16.ts';
import type { MeterValueType } from './generated/v201.ts';

/** One reading of a meterValue: when, the energy register (Wh) and the active import power (kW). */
export interface Sampled {
  ts: Date;
  wh: number | null;
  powerKw: number | null;
}

const ENERGY = 'Energy.Active.Import.Register';
const POWER = 'Power.Active.Import';
const defaultUnit = (measurand: string) => (measurand.startsWith('Power') ? 'W' : 'Wh');

/**
 * The register and power of one reading: its totals only (a phase's value is skipped), each
 * measurand (the register when none is named) read as (value, unit) by `read`; a value that is not
 * finite stays NaN, for the judge to refuse with its reason.
 */
function sampled<V extends { phase?: unknown; measurand?: string }>(
  ts: string,
  values: V[],
  read: (sv: V, measurand: string) => { value: number; unit: string },
): Sampled {
  let wh: number | null = null;
  let powerKw: number | null = null;
  for (const sv of values) {
    if (sv.phase) continue;
    const measurand = sv.measurand ?? ENERGY;
    const { value: raw, unit } = read(sv, measurand);
    const value = Number.isFinite(raw) ? raw : Number.NaN;
    if (measurand === ENERGY) wh = Math.round(unit === 'kWh' ? value * 1000 : value);
    else if (measurand === POWER) powerKw = unit === 'kW' ? value : value / 1000;
  }
  return { ts: new Date(ts), wh, powerKw };
}

/** An OCPP 1.6 meterValue: a string value and its `unit`. */
export function readMeterValue16(mv: MeterValue16): Sampled {
  return sampled(mv.timestamp, mv.sampledValue, (sv, measurand) => ({ value: Number(sv.value), unit: sv.unit ?? defaultUnit(measurand) }));
}

/** An OCPP 2.0.1 meterValue: the value scaled by its unit's multiplier. */
export function readMeterValue201(mv: MeterValueType): Sampled {
  return sampled(mv.timestamp, mv.sampledValue, (sv, measurand) => ({
    value: Number(sv.value) * 10 ** (sv.unitOfMeasure?.multiplier ?? 0),
    unit: sv.unitOfMeasure?.unit ?? defaultUnit(measurand),
  }));
}
