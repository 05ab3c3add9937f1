// 1.6 DiagnosticsStatusNotification: the charger's diagnostics upload status (after a
// get-diagnostics command) is kept on the charge point with the time it arrived.
import { hubStore as store } from '../../store.ts';
import type { Handler } from '../context.ts';
import type { DiagnosticsStatusNotificationRequest, DiagnosticsStatusNotificationResponse } from '../generated/v16.ts';

export const diagnosticsStatusNotification: Handler<DiagnosticsStatusNotificationRequest, DiagnosticsStatusNotificationResponse> = async (ctx, params) => {
  await store.transferStatus(ctx.db, ctx.session.orgId, ctx.session.cpId, 'diagnostics', params.status, ctx.clock.now());
  return {};
};
