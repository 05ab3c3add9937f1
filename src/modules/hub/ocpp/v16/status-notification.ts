// 1.6 StatusNotification: a connector's status (0: the whole charge point) goes to the status
// history with its OCPI equivalent and the charger's error code (none for NoError).
import type { Handler } from '../context.ts';
import { connectorOf } from '../edge.ts';
import type { StatusNotificationRequest, StatusNotificationResponse } from '../generated/v16.ts';

const OCPI: Record<StatusNotificationRequest['status'], string> = {
  Available: 'AVAILABLE',
  Preparing: 'CHARGING',
  Charging: 'CHARGING',
  SuspendedEV: 'CHARGING',
  SuspendedEVSE: 'CHARGING',
  Finishing: 'CHARGING',
  Reserved: 'RESERVED',
  Unavailable: 'INOPERATIVE',
  Faulted: 'OUTOFORDER',
};

export const statusNotification: Handler<StatusNotificationRequest, StatusNotificationResponse> = async (ctx, params) => {
  const connectorId = connectorOf(params.connectorId, 'connectorId', 0); // 0: the whole charge point
  await ctx.station.status(
    ctx.session,
    connectorId,
    params.status,
    OCPI[params.status],
    params.errorCode === 'NoError' ? null : params.errorCode,
    params.timestamp,
  );
  return {};
};
