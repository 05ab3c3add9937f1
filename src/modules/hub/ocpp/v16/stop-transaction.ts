// 1.6 StopTransaction: the stop register is judged as the transaction's last sample (with any
// transactionData), then the transaction stops; an unknown transaction is logged and accepted. The
// idTagInfo answers the tag that stopped it, when one did (authorisation.ts).
import { idTagInfo16 } from '../authorisation.ts';
import type { Handler } from '../context.ts';
import type { StopTransactionRequest, StopTransactionResponse } from '../generated/v16.ts';
import { readMeterValue16 } from '../meter-values.ts';

export const stopTransaction: Handler<StopTransactionRequest, StopTransactionResponse> = async (ctx, params) => {
  const s = ctx.session;
  const answer = params.idTag !== undefined ? { idTagInfo: idTagInfo16(await ctx.auth.check(s, params.idTag)) } : {};
  const ocppId = String(params.transactionId);
  const tx = await ctx.transactions.stored(s, ocppId);
  if (!tx) {
    ctx.log.warn({ orgId: s.orgId, cp: s.cpId, transactionId: params.transactionId }, 'hub: StopTransaction for an unknown transaction');
    return answer;
  }
  const at = ctx.chargerTime(params.timestamp);
  const data = (params.transactionData ?? []).map(readMeterValue16);
  // The stop reading is judged as the transaction's last sample; the stop keeps the latest accepted one.
  await ctx.meters.meter(s, tx.connector_id, tx.transaction_id, [...data, { ts: at, wh: params.meterStop, powerKw: null }], at);
  await ctx.transactions.stop(s, ocppId, tx, at, params.reason ?? 'Local');
  return answer;
};
