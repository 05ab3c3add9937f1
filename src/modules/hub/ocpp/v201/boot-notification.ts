// 2.0.1 BootNotification: the charging station's vendor, model, firmware and serial are stored; it
// is accepted with the heartbeat interval of the settings (and then configured: decision 0489).
import type { Handler } from '../context.ts';
import type { BootNotificationRequest, BootNotificationResponse } from '../generated/v201.ts';

export const bootNotification: Handler<BootNotificationRequest, BootNotificationResponse> = async (ctx, params) => {
  const { currentTime } = await ctx.station.boot(ctx.session, {
    vendor: params.chargingStation.vendorName,
    model: params.chargingStation.model,
    firmware: params.chargingStation.firmwareVersion ?? null,
    serial: params.chargingStation.serialNumber ?? null,
  });
  ctx.booted(ctx.session, ctx.version);
  return { status: 'Accepted', currentTime, interval: ctx.settings.heartbeatIntervalS };
};
