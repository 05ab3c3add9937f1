// 1.6 MeterValues: readings of a connector (0: the main meter), against the transaction they name.
import type { Handler } from '../context.ts';
import { connectorOf } from '../edge.ts';
import type { MeterValuesRequest, MeterValuesResponse } from '../generated/v16.ts';
import { readMeterValue16 } from '../meter-values.ts';

export const meterValues: Handler<MeterValuesRequest, MeterValuesResponse> = async (ctx, params) => {
  const connectorId = connectorOf(params.connectorId, 'connectorId', 0); // 0: the main meter
  const tx = params.transactionId !== undefined ? await ctx.transactions.txOf(ctx.session, String(params.transactionId)) : null;
  await ctx.meters.meter(ctx.session, tx?.connector_id ?? connectorId, tx?.transaction_id ?? null, params.meterValue.map(readMeterValue16));
  return {};
};
