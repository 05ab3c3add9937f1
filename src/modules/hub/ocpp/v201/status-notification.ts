// 2.0.1 StatusNotification: reported per EVSE and connector; the hub counts EVSEs as its connectors
// (0: the whole station), with the OCPI equivalent of the status. An EVSE of several connectors
// has the aggregate of theirs (decision 0436): while one is in use the others say Unavailable,
// and the EVSE is Occupied; it is Available while any connector is.
import type { Handler } from '../context.ts';
import { connectorOf } from '../edge.ts';
import type { ConnectorStatusEnumType, StatusNotificationRequest, StatusNotificationResponse } from '../generated/v201.ts';

const OCPI: Record<ConnectorStatusEnumType, string> = {
  Available: 'AVAILABLE',
  Occupied: 'CHARGING',
  Reserved: 'RESERVED',
  Unavailable: 'INOPERATIVE',
  Faulted: 'OUTOFORDER',
};

/** Which connector's status stands for the EVSE: the first of these any connector has. */
const PRECEDENCE: readonly ConnectorStatusEnumType[] = ['Occupied', 'Reserved', 'Available', 'Faulted', 'Unavailable'];

export function evseStatusOf(statuses: string[]): { status: ConnectorStatusEnumType; ocpi: string } {
  const status = PRECEDENCE.find((p) => statuses.includes(p)) ?? 'Unavailable';
  return { status, ocpi: OCPI[status] };
}

export const statusNotification: Handler<StatusNotificationRequest, StatusNotificationResponse> = async (ctx, params) => {
  const evseId = connectorOf(params.evseId, 'evseId', 0);
  const connectorId = connectorOf(params.connectorId, 'connectorId', 0);
  if (evseId === 0) await ctx.station.status(ctx.session, 0, params.connectorStatus, OCPI[params.connectorStatus], null, params.timestamp);
  else await ctx.station.evseStatus(ctx.session, evseId, connectorId, params.connectorStatus, params.timestamp, evseStatusOf);
  return {};
};
