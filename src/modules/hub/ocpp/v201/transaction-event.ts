// 2.0.1 TransactionEvent: Started, Updated and Ended of a transaction the station numbers. The first
// event the hub sees of a transaction starts it (also one begun while the station was offline);
// each event's readings are judged against it; Ended stops it. An event carrying an id token is
// answered from the organisation's id tokens (or free vend, authorisation.ts); the transaction keeps
// the verdict on the token it started with, or on the first token of a later event when it started
// without one.
import { idTokenInfo201, type Verdict } from '../authorisation.ts';
import { registerInRange, timeProblem } from '../../meter-rules.ts';
import type { Handler } from '../context.ts';
import { connectorOf } from '../edge.ts';
import type { TransactionEventRequest, TransactionEventResponse } from '../generated/v201.ts';
import { readMeterValue201 } from '../meter-values.ts';
import { hubStore as store } from '../../store.ts';

export const transactionEvent: Handler<TransactionEventRequest, TransactionEventResponse> = async (ctx, params) => {
  const s = ctx.session;
  const ocppId = params.transactionInfo.transactionId;
  const at = ctx.chargerTime(params.timestamp);
  const values = (params.meterValue ?? []).map(readMeterValue201);
  if (params.evse !== undefined) {
    connectorOf(params.evse.id, 'evse.id', 1); // a transaction is on an EVSE, never 0
    if (params.evse.connectorId !== undefined) connectorOf(params.evse.connectorId, 'evse.connectorId', 1);
  }
  const verdict: Verdict | null = params.idToken ? await ctx.auth.check(s, params.idToken.idToken) : null;
  let tx = await ctx.transactions.txOf(s, ocppId);
  if (!tx) {
    // Started without a token (authorised later, or not at all): free vend where the site chose it, else none.
    const applied = verdict ?? (await ctx.auth.check(s, null));
    const authorisation =
      verdict || applied.authorisation === 'free_vend'
        ? { applied: applied.authorisation, status: verdict ? verdict.status : null }
        : { applied: 'none' as const, status: null };
    // Started, or the first event the hub sees of a transaction begun while it was not connected.
    // Its start reading is the earliest usable register it carries, and it began no later than that.
    const nowMs = ctx.clock.now().getTime();
    const first = values
      .filter((v) => v.wh !== null && registerInRange(v.wh) && !timeProblem(v.ts.getTime(), nowMs))
      .sort((x, y) => x.ts.getTime() - y.ts.getTime())[0];
    const startAt = first && first.ts.getTime() < at.getTime() ? first.ts : at;
    const connectorId = params.evse?.id ?? 1;
    await ctx.db.tx((q) =>
      ctx.transactions.start(q, s, {
        connectorId,
        ocppId,
        version: 'ocpp2.0.1',
        idTag: params.idToken?.idToken ?? null,
        authorisation,
        at: startAt,
        meterStartWh: first?.wh ?? null,
      }),
    );
    tx = await ctx.transactions.txOf(s, ocppId);
  }
  const link = tx!;
  const ended = params.eventType === 'Ended';
  // A transaction begun without a token (cable first: TxStartPoint EVConnected) is authorised by the
  // token of a later event: the session records it as a 1.6 StartTransaction records its idTag (issue
  // 39 item 5). Not from Ended: a token there is the one that stopped it.
  if (verdict && params.idToken && !ended) {
    await store.authoriseLater(ctx.db, s.orgId, link.transaction_id, params.idToken.idToken, verdict.authorisation, verdict.status);
  }
  if (values.length) await ctx.meters.meter(s, link.connector_id, link.transaction_id, values, ended ? at : null);
  if (ended) await ctx.transactions.stop(s, ocppId, link, at, params.transactionInfo.stoppedReason ?? 'Local');
  return verdict ? { idTokenInfo: idTokenInfo201(verdict) } : {};
};
