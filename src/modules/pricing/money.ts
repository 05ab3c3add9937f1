// The pricing module's figures in exact decimal: rates and quantities at 6 decimals, products at
// 12, rounded half away from zero only where a stated rule says (market's decimal helpers).
import { parseScaled, rescale, formatScaled, roundDiv } from '../market/index.ts';

export const Q = 6; // rates (p/kWh, p/day, p/kVA/day, percent), kWh and kVA: 10^-6 units
export const P = 12; // products of two Q figures

/** Decimal text at Q decimals; throws on text the schemas should have refused. */
export function q(text: string): bigint {
  const v = parseScaled(text, Q);
  if (v === null) throw new Error(`not a decimal with at most ${Q} places: ${text}`);
  return v;
}

export { rescale, formatScaled, roundDiv };
/** A figure at `scale` decimals as text with `dp` decimals. */
export const text = (v: bigint, scale: number, dp: number) => formatScaled(v, scale, dp);
/** A Q figure as the shortest exact text ("0.5", "12", "-0.125"). */
export function plain(v: bigint, scale = Q): string {
  const s = formatScaled(v, scale, scale);
  return s.includes('.') ? s.replace(/0+$/, '').replace(/\.$/, '') : s;
}
