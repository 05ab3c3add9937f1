// 2.0.1 MeterValues: readings of an EVSE (0: the main meter) outside any transaction (a
// transaction's readings come in TransactionEvent).
import type { Handler } from '../context.ts';
import { connectorOf } from '../edge.ts';
import type { MeterValuesRequest, MeterValuesResponse } from '../generated/v201.ts';
import { readMeterValue201 } from '../meter-values.ts';

export const meterValues: Handler<MeterValuesRequest, MeterValuesResponse> = async (ctx, params) => {
  const evseId = connectorOf(params.evseId, 'evseId', 0); // 0: the main meter
  await ctx.meters.meter(ctx.session, evseId, null, params.meterValue.map(readMeterValue201));
  return {};
};
