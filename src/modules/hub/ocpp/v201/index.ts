// OCPP 2.0.1: the actions a charging station may send and their handlers (one file each). An action
// not here is answered NotImplemented; every request was checked against the official 2.0.1 schema first.
import type { HandlerTable } from '../context.ts';
import type { Actions } from '../generated/v201.ts';
import { authorize } from './authorize.ts';
import { bootNotification } from './boot-notification.ts';
import { firmwareStatusNotification } from './firmware-status-notification.ts';
import { heartbeat } from './heartbeat.ts';
import { logStatusNotification } from './log-status-notification.ts';
import { meterValues } from './meter-values.ts';
import { statusNotification } from './status-notification.ts';
import { transactionEvent } from './transaction-event.ts';

export const handlers201: HandlerTable<Actions> = {
  BootNotification: bootNotification,
  Heartbeat: heartbeat,
  StatusNotification: statusNotification,
  Authorize: authorize,
  MeterValues: meterValues,
  TransactionEvent: transactionEvent,
  FirmwareStatusNotification: firmwareStatusNotification,
  LogStatusNotification: logStatusNotification,
};
