// 2.0.1 Heartbeat: the station's last contact is stored; it is told the service's time.
import type { Handler } from '../context.ts';
import type { HeartbeatRequest, HeartbeatResponse } from '../generated/v201.ts';

export const heartbeat: Handler<HeartbeatRequest, HeartbeatResponse> = (ctx) => ctx.station.heartbeat(ctx.session);
