// OCPP 1.6J: the actions a charger may send and their handlers (one file each). An action not here
// is answered NotImplemented; every request was checked against the official 1.6 schema first.
import type { HandlerTable } from '../context.ts';
import type { Actions } from '../generated/v16.ts';
import { authorize } from './authorize.ts';
import { bootNotification } from './boot-notification.ts';
import { diagnosticsStatusNotification } from './diagnostics-status-notification.ts';
import { firmwareStatusNotification } from './firmware-status-notification.ts';
import { heartbeat } from './heartbeat.ts';
import { meterValues } from './meter-values.ts';
import { startTransaction } from './start-transaction.ts';
import { statusNotification } from './status-notification.ts';
import { stopTransaction } from './stop-transaction.ts';

export const handlers16: HandlerTable<Actions> = {
  BootNotification: bootNotification,
  Heartbeat: heartbeat,
  StatusNotification: statusNotification,
  Authorize: authorize,
  StartTransaction: startTransaction,
  MeterValues: meterValues,
  StopTransaction: stopTransaction,
  FirmwareStatusNotification: firmwareStatusNotification,
  DiagnosticsStatusNotification: diagnosticsStatusNotification,
};
