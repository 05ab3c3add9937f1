// 1.6 StartTransaction: the hub numbers the transaction, starts it under the price schedule in
// force, and takes the start register as the session's first reading. The id tag is answered from
// the organisation's id tokens (or free vend); a transaction the answer refuses is still recorded
// with that answer, as the charger reports it: the charger ends it (StopTransaction, DeAuthorized).
import { idTagInfo16, status16 } from '../authorisation.ts';
import type { Handler } from '../context.ts';
import { connectorOf } from '../edge.ts';
import type { StartTransactionRequest, StartTransactionResponse } from '../generated/v16.ts';

export const startTransaction: Handler<StartTransactionRequest, StartTransactionResponse> = async (ctx, params) => {
  const s = ctx.session;
  const connectorId = connectorOf(params.connectorId, 'connectorId', 1); // a transaction is on a connector, never 0
  const ocppId = await ctx.transactions.nextOcppId();
  const at = ctx.chargerTime(params.timestamp);
  const verdict = await ctx.auth.check(s, params.idTag);
  const authorisation = { applied: verdict.authorisation, status: status16(verdict) };
  const transactionId = await ctx.db.tx((q) =>
    ctx.transactions.start(q, s, {
      connectorId,
      ocppId: String(ocppId),
      version: 'ocpp1.6',
      idTag: params.idTag,
      authorisation,
      at,
      meterStartWh: params.meterStart,
    }),
  );
  // The start register is the session's first reading everywhere, not only in the hub's own
  // table: judged like any sample, it reaches the charger's telemetry, so the site's energy
  // ledger counts the first interval too (one session, one energy; issue 36).
  await ctx.meters.meter(s, connectorId, transactionId, [{ ts: at, wh: params.meterStart, powerKw: null }]);
  return { transactionId: ocppId, idTagInfo: idTagInfo16(verdict) };
};
