// The pricing module's scales for the kit's exact decimals (src/kit/decimal.ts): rates and
// quantities at 6 decimals, products at 12, rounded half away from zero only where a stated rule says.
import { decimal, formatPlain } from '../../kit/decimal.ts';

export const Q = 6; // rates (p/kWh, p/day, p/kVA/day, percent), kWh and kVA: 10^-6 units
export const P = 12; // products of two Q figures

/** Decimal text at Q decimals; throws on text the schemas should have refused. */
export const q = (text: string): bigint => decimal(text, Q);

/** A Q figure (or one at `scale`) as the shortest exact text ("0.5", "12", "-0.125"). */
export const plain = (v: bigint, scale = Q): string => formatPlain(v, scale);
