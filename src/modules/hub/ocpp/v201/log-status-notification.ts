// 2.0.1 LogStatusNotification: the station's log upload status (after a get-diagnostics command)
// is kept on the charge point as its diagnostics status, with the time it arrived.
import { hubStore as store } from '../../store.ts';
import type { Handler } from '../context.ts';
import type { LogStatusNotificationRequest, LogStatusNotificationResponse } from '../generated/v201.ts';

export const logStatusNotification: Handler<LogStatusNotificationRequest, LogStatusNotificationResponse> = async (ctx, params) => {
  await store.transferStatus(ctx.db, ctx.session.orgId, ctx.session.cpId, 'diagnostics', params.status, ctx.clock.now());
  return {};
};
