// What every OCPP message handler is given: the connection's charger (one typed object, made once
// per connection by the gateway) and the hub's OCPP services. Handlers are plain functions of
// (context, request) -> response, one per action and version (./v16, ./v201).
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../../../infra/db/index.ts';
import type { Clock } from '../../../platform/clock.ts';
import type { Authoriser } from './authorisation.ts';
import type { OcppVersion } from './edge.ts';
import type { MeterWriter } from './meter-writer.ts';
import type { StationEvents } from './station.ts';
import type { TransactionLinks } from './transactions.ts';

export interface OcppSettings {
  heartbeatIntervalS: number;
  commandTimeoutMs: number;
  maxFrameBytes: number;
  badMessagesPerMinute: number;
}

/** The charger a connection authenticated as (set at the handshake, ocpp-rpc's `client.session`). */
export interface ChargerSession {
  orgId: string;
  cpId: string;
  siteId: string;
  assetId: string;
}

/** The services handlers share (one set per gateway). */
export interface OcppServices {
  db: Db;
  clock: Clock;
  log: FastifyBaseLogger;
  settings: OcppSettings;
  /** A timestamp from a charger, or the service's clock when it is unusable (station.ts). */
  chargerTime: (s: unknown) => Date;
  station: StationEvents;
  transactions: TransactionLinks;
  meters: MeterWriter;
  /** Id tokens answered from the organisation's list, or free vend (authorisation.ts). */
  auth: Authoriser;
  /**
   * Called by a BootNotification handler once the charger is accepted: what the hub sends a booted
   * charger (decision 0489) goes out after the answer, never before it, in the connection's own
   * OCPP version (the charge point's stored version may not be written yet on a first connection).
   */
  booted: (s: ChargerSession, version: OcppVersion) => void;
}

/** One connection's context: the services and the charger it speaks for. */
export interface CallContext extends OcppServices {
  session: ChargerSession;
  version: OcppVersion;
}

/** A handler of one action: the request as the official schema types it (ocpp-rpc validated it), the response it answers. */
export type Handler<Req, Res> = (ctx: CallContext, params: Req) => Promise<Res> | Res;

/**
 * A version's dispatch table: action -> handler, typed by the generated `Actions` of that version.
 * An action without a handler is answered NotImplemented by ocpp-rpc.
 */
export type HandlerTable<A> = { [K in keyof A]?: A[K] extends { request: infer Req; response: infer Res } ? Handler<Req, Res> : never };
