// 1.6 FirmwareStatusNotification: the charger's firmware update status (after an update-firmware
// command) is kept on the charge point with the time it arrived.
import { hubStore as store } from '../../store.ts';
import type { Handler } from '../context.ts';
import type { FirmwareStatusNotificationRequest, FirmwareStatusNotificationResponse } from '../generated/v16.ts';

export const firmwareStatusNotification: Handler<FirmwareStatusNotificationRequest, FirmwareStatusNotificationResponse> = async (ctx, params) => {
  await store.transferStatus(ctx.db, ctx.session.orgId, ctx.session.cpId, 'firmware', params.status, ctx.clock.now());
  return {};
};
