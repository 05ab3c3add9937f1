// 1.6 BootNotification: the charger's vendor, model, firmware and serial are stored; it is accepted
// with the heartbeat interval of the settings (and then configured: decision 0489).
import type { Handler } from '../context.ts';
import type { BootNotificationRequest, BootNotificationResponse } from '../generated/v16.ts';

export const bootNotification: Handler<BootNotificationRequest, BootNotificationResponse> = async (ctx, params) => {
  const { currentTime } = await ctx.station.boot(ctx.session, {
    vendor: params.chargePointVendor,
    model: params.chargePointModel,
    firmware: params.firmwareVersion ?? null,
    serial: params.chargePointSerialNumber ?? params.chargeBoxSerialNumber ?? null,
  });
  ctx.booted(ctx.session, ctx.version);
  return { status: 'Accepted', currentTime, interval: ctx.settings.heartbeatIntervalS };
};
