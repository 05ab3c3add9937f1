// The charger side: an OCPP-J endpoint (1.6 and 2.0.1) on the service's own HTTP server, through
// ocpp-rpc (RPC framing, subprotocol negotiation, HTTP Basic credentials, strict validation of every
// CALL and CALLRESULT against the official JSON schemas; malformed frames get a CALLERROR and the
// connection stays, up to a limit a minute). Charge points connect to
// `<OCPP_PATH>/<org_id>/<charge_point_id>`. The edge (docs/security.md, "The device edge"; decisions
// 0270-0273): the path is checked here before ocpp-rpc sees it (400); an unknown organisation, an
// unknown charge point and a wrong password are one answer (401), counted against the address's
// failed-authentication limit (429 past it, before any password is checked); frames are limited in
// size (1009); a CALLERROR carries no data the charger sent and no internal error text. Meter values land as telemetry
// of the charge point's registry asset; status notifications go to the connector status history
// (reliability). A charger is held by one instance; commands to it from another instance go over
// the bus to the instance that holds it (hub.cmd.<instance>, answered on hub.reply.<instance>).
import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders, IncomingMessage, Server } from 'node:http';
import type { Socket } from 'node:net';
import ocppRpc from 'ocpp-rpc';
import type { Db, Queryable } from '../../infra/db/index.ts';
import type { Bus } from '../../infra/bus/index.ts';
import type { Clock } from '../../platform/clock.ts';
import type { FastifyBaseLogger } from 'fastify';
import type { TelemetryWriter } from '../telemetry/index.ts';
import type { EntryGuard } from '../../platform/entry-guard.ts';
import type { FailedAuthLimit } from '../../platform/auth-failures.ts';
import type { Metrics } from '../../platform/metrics.ts';
import { AppError } from '../../platform/errors.ts';
import { clientAddressResolver } from '../../platform/client-address.ts';
import { isWellFormed } from '../../platform/text-guard.ts';
import { STATUS_CODES } from 'node:http';
type CanonicalRow = Parameters<TelemetryWriter['writeInTx']>[3][number];
import { hubStore as store, type ChargePointRow } from './store.ts';
import {
  countAnomaly,
  judgeRegister,
  powerInRange,
  registerInRange,
  timeProblem,
  CLOCK_TOLERANCE_MS,
  type AnomalyCounts,
  type MeterAnomaly,
  type TxMeter,
} from './meter-rules.ts';

const { RPCServer, createRPCError } = ocppRpc;

/** Where chargers connect: `<prefix>/<org_id>/<charge_point_id>`. */
export const OCPP_PATH = '/ocpp';
export const SUBPROTOCOLS = ['ocpp2.0.1', 'ocpp1.6'] as const;
export type OcppVersion = (typeof SUBPROTOCOLS)[number];

/** SHA-256 of a charge point password (the service makes them: 20 random characters, about 119 bits). */
export const hashPassword = (pw: string | Buffer) => createHash('sha256').update(pw).digest('hex');

const OCPI_16: Record<string, string> = {
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
const OCPI_201: Record<string, string> = {
  Available: 'AVAILABLE',
  Occupied: 'CHARGING',
  Reserved: 'RESERVED',
  Unavailable: 'INOPERATIVE',
  Faulted: 'OUTOFORDER',
};

interface Session {
  orgId: string;
  cpId: string;
  siteId: string;
  assetId: string;
}

// What this gateway reads of each OCPP message a charger sends (the official schemas' members;
// ocpp-rpc checks every call against the version's schemas in strict mode before a handler runs).

/** A meterValue of either version: 1.6 states `unit` and a string value, 2.0.1 `unitOfMeasure` and a number. */
interface MeterValueIn {
  timestamp: string;
  sampledValue?: {
    value: string | number;
    measurand?: string;
    phase?: string;
    unit?: string;
    unitOfMeasure?: { unit?: string; multiplier?: number };
  }[];
}

type Calls16 = {
  BootNotification: {
    chargePointVendor: string;
    chargePointModel: string;
    firmwareVersion?: string;
    chargePointSerialNumber?: string;
    chargeBoxSerialNumber?: string;
  };
  Heartbeat: Record<string, never>;
  StatusNotification: { connectorId: number; status: string; errorCode: string; timestamp?: string };
  Authorize: { idTag: string };
  StartTransaction: { connectorId: number; idTag: string; meterStart: number; timestamp: string };
  MeterValues: { connectorId: number; transactionId?: number; meterValue?: MeterValueIn[] };
  StopTransaction: { transactionId: number; meterStop: number; timestamp: string; reason?: string; transactionData?: MeterValueIn[] };
};

type Calls201 = {
  BootNotification: { chargingStation: { vendorName: string; model: string; firmwareVersion?: string; serialNumber?: string } };
  Heartbeat: Record<string, never>;
  StatusNotification: { timestamp: string; connectorStatus: string; evseId: number; connectorId: number };
  Authorize: { idToken: { idToken: string; type: string } };
  MeterValues: { evseId: number; meterValue?: MeterValueIn[] };
  TransactionEvent: {
    eventType: 'Started' | 'Updated' | 'Ended';
    timestamp: string;
    transactionInfo: { transactionId: string; stoppedReason?: string };
    idToken?: { idToken: string; type: string };
    evse?: { id: number; connectorId?: number };
    meterValue?: MeterValueIn[];
  };
};

/** The parts of ocpp-rpc's handshake read here. */
interface Handshake {
  request: IncomingMessage;
  headers: IncomingHttpHeaders;
  protocols: Set<string>;
  password: Buffer | undefined;
}

// ocpp-rpc's types are loose where handlers are concerned; these are the parts used here, with the
// calls' params as above.
interface RpcClient<Calls = Record<string, unknown>> {
  identity: string;
  protocol: string;
  session: Session;
  handle<A extends keyof Calls & string>(method: A, fn: (c: { params: Calls[A] }) => unknown): void;
  handle(fn: (c: { method: string; params: unknown }) => unknown): void;
  /** A CALLRESULT's payload: a JSON object, checked against the action's schema. */
  call(method: string, params: unknown, opts?: { callTimeoutMs?: number }): Promise<Record<string, unknown>>;
  close(opts?: { code?: number; reason?: string; force?: boolean }): Promise<unknown>;
  on(ev: string, fn: (e: never) => void): void;
  sendRaw(message: string): void;
}

export interface CommandOutcome {
  /** local: sent from this instance; routed: sent by the instance holding the charger; not_connected; timeout; error. */
  delivery: 'local' | 'routed' | 'not_connected' | 'timeout' | 'error';
  result: Record<string, unknown> | null;
  error: string | null;
}

export interface OcppSettings {
  heartbeatIntervalS: number;
  commandTimeoutMs: number;
  maxFrameBytes: number;
  badMessagesPerMinute: number;
}

/** Longest decoded organisation id or charge point id a path may carry (both are far shorter). */
const MAX_SEGMENT = 128;
/** OCPP-J message ids are at most 36 characters; a CALLERROR never echoes more. */
const MAX_MESSAGE_ID = 36;
/** CALLs of one connection handled at once (OCPP-J: one; chargers that pipeline get some slack). */
const MAX_CALLS_IN_FLIGHT = 8;
/** A CALLERROR's description is passed on only up to this length (ocpp-rpc's own texts and the schema validator's are shorter). */
const MAX_DESCRIPTION = 120;

/** An OCPP-J RPC error (ocpp-rpc's or one made here), as opposed to anything a handler ran into. */
const isRpcError = (err: unknown): err is Error & { rpcErrorCode: string } => typeof (err as { rpcErrorCode?: unknown })?.rpcErrorCode === 'string';

/**
 * The organisation and charge point of an upgrade's target, read as ocpp-rpc reads it (WHATWG URL
 * path, segments percent-decoded): null when the path is not under OCPP_PATH, a reason when it is
 * but cannot name a charger. ocpp-rpc decodes outside its own `try` (issue 35, finding 1), so
 * nothing reaches it that this has not decoded.
 */
export function ocppTarget(url: string | undefined): { orgId: string; cpId: string } | { refused: string } | null {
  let pathname: string;
  try {
    pathname = new URL(`http://localhost${url || '/'}`).pathname;
  } catch {
    return { refused: 'Malformed request target' };
  }
  if (!pathname.startsWith(`${OCPP_PATH}/`)) return null;
  const segments = pathname.slice(OCPP_PATH.length + 1).split('/');
  if (segments.length !== 2) return { refused: `Expected ${OCPP_PATH}/<org_id>/<charge_point_id>` };
  const decoded: string[] = [];
  for (const seg of segments) {
    let d: string;
    try {
      d = decodeURIComponent(seg);
    } catch {
      return { refused: 'Malformed percent-encoding in the path' };
    }
    if (d === '' || d.length > MAX_SEGMENT || d.includes('/') || /[\u0000-\u001f\u007f]/.test(d) || !isWellFormed(d)) {
      return { refused: `Expected ${OCPP_PATH}/<org_id>/<charge_point_id>` };
    }
    decoded.push(d);
  }
  return { orgId: decoded[0], cpId: decoded[1] };
}

/** RFC 6455's Sec-WebSocket-Protocol: tokens separated by commas, none twice (ocpp-rpc answers 500 otherwise). */
function wellFormedSubprotocols(header: string | string[] | undefined): boolean {
  if (header === undefined) return true;
  if (Array.isArray(header)) return false;
  const seen = new Set<string>();
  for (const p of header.split(',').map((x) => x.trim())) {
    if (!/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(p) || seen.has(p)) return false;
    seen.add(p);
  }
  return true;
}

/** Ends an upgrade with a plain HTTP answer (the handshake never became a WebSocket). */
function refuseUpgrade(socket: Socket, code: number, message = STATUS_CODES[code] ?? 'Refused') {
  if (socket.writable) {
    socket.once('finish', () => socket.destroy());
    socket.end(
      `HTTP/1.1 ${code} ${STATUS_CODES[code] ?? 'Refused'}\r\nConnection: close\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(message)}\r\n\r\n${message}`,
    );
  } else socket.destroy();
}

/**
 * A CALLERROR as it may leave: the message id cut to OCPP's 36 characters, the description kept
 * only when short (ocpp-rpc's and the schema validator's texts name fields, never values), the
 * details always empty: ocpp-rpc puts the charger's whole payload there on a schema failure.
 */
export function plainCallError(message: string): string {
  let frame: unknown;
  try {
    frame = JSON.parse(message);
  } catch {
    return message;
  }
  if (!Array.isArray(frame) || frame[0] !== 4) return message;
  const [, id, code, description] = frame as [number, unknown, unknown, unknown];
  const text = typeof description === 'string' && description.length <= MAX_DESCRIPTION ? description : 'The message was refused';
  return JSON.stringify([4, String(id ?? '-1').slice(0, MAX_MESSAGE_ID), typeof code === 'string' ? code.slice(0, 40) : 'GenericError', text, {}]);
}

interface Sampled {
  ts: Date;
  wh: number | null;
  powerKw: number | null;
}

/**
 * Energy register (Wh) and active import power (kW) of one OCPP meterValue (1.6 or 2.0.1 shape), as
 * read: a value that is not a finite number stays NaN, for the judge to refuse with its reason.
 */
function readMeterValue(mv: MeterValueIn, version: OcppVersion): Sampled {
  let wh: number | null = null;
  let powerKw: number | null = null;
  for (const sv of mv.sampledValue ?? []) {
    if (sv.phase) continue; // totals only
    const measurand = sv.measurand ?? 'Energy.Active.Import.Register';
    let value: number;
    let unit: string;
    if (version === 'ocpp1.6') {
      value = Number(sv.value);
      unit = sv.unit ?? (measurand.startsWith('Power') ? 'W' : 'Wh');
    } else {
      value = Number(sv.value) * 10 ** (sv.unitOfMeasure?.multiplier ?? 0);
      unit = sv.unitOfMeasure?.unit ?? (measurand.startsWith('Power') ? 'W' : 'Wh');
    }
    if (!Number.isFinite(value)) value = Number.NaN;
    if (measurand === 'Energy.Active.Import.Register') wh = Math.round(unit === 'kWh' ? value * 1000 : value);
    else if (measurand === 'Power.Active.Import') powerKw = unit === 'kW' ? value : value / 1000;
  }
  return { ts: new Date(mv.timestamp), wh, powerKw };
}

/** The largest id a connector, EVSE or other integer the hub stores may have (PostgreSQL int). */
const INT_MAX = 2_147_483_647;
/**
 * A connector or EVSE id a message carries: a whole number from `min` (0 where the message may name the
 * whole charge point or its main meter, else 1) to INT_MAX; anything else is answered
 * PropertyConstraintViolation before the store sees it.
 */
function connectorOf(v: unknown, field: string, min: 0 | 1): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > INT_MAX) {
    throw createRPCError('PropertyConstraintViolation', `${field} must be a whole number from ${min} to ${INT_MAX}`, {});
  }
  return v;
}

export function createOcppGateway(deps: {
  db: Db;
  bus: Bus;
  clock: Clock;
  log: FastifyBaseLogger;
  writer: TelemetryWriter;
  settings: OcppSettings;
  entries: EntryGuard;
  failedAuth: FailedAuthLimit;
  metrics: Metrics;
  trustProxy: readonly string[];
}) {
  const { db, bus, clock, log, writer, settings, entries, failedAuth } = deps;
  const addressOf = clientAddressResolver(deps.trustProxy);
  const refusals = deps.metrics.counter({
    name: 'hub_ocpp_refusals_total',
    help: 'What the OCPP edge refused, by reason: bad_path, auth_failed, auth_throttled, bad_subprotocol, oversized_frame, bad_message_limit, store_refused, internal_error',
    labelNames: ['reason'],
  });
  /** Where this instance listens (for the endpoint chargers are given when HUB_OCPP_PUBLIC_URL is unset). */
  let listening: Server | undefined;
  const instanceId = randomUUID();
  const clients = new Map<string, RpcClient>(); // `${org}/${cp}` -> connection held here
  const pending = new Set<Promise<unknown>>(); // writes started by connection events
  const replies = new Map<string, (o: CommandOutcome) => void>();
  const unsubs: (() => Promise<void>)[] = [];
  let stopped = false;
  let retry: NodeJS.Timeout | undefined;
  /**
   * Commands routed here by other instances, and their answers. A bus that is down at start does not
   * stop the service (readiness says degraded): this instance keeps its own chargers and tries again
   * every few seconds; only routing through it waits for the bus.
   */
  async function listenForCommands(): Promise<void> {
    try {
      const cmd = await bus.subscribe(`hub.cmd.${instanceId}`, async (payload) => {
        const m = payload as { id: string; reply: string; orgId: string; cpId: string; action: string; params: unknown };
        const out = (await callLocal(m.orgId, m.cpId, m.action, m.params)) ?? {
          delivery: 'not_connected',
          result: null,
          error: 'The charger is not connected',
        };
        await bus.publish(`hub.reply.${m.reply}`, { id: m.id, outcome: out.delivery === 'local' ? { ...out, delivery: 'routed' } : out });
      });
      unsubs.push(cmd);
      unsubs.push(
        await bus.subscribe(`hub.reply.${instanceId}`, (payload) => {
          const m = payload as { id: string; outcome: CommandOutcome };
          replies.get(m.id)?.(m.outcome);
        }),
      );
    } catch (err) {
      for (const u of unsubs.splice(0)) await u().catch(() => {});
      if (stopped) return;
      log.warn({ err }, 'hub: bus unavailable, command routing to this instance retries in 5 s');
      retry = setTimeout(() => entries.settle('hub.command-routing', listenForCommands()), 5_000);
      retry.unref();
    }
  }
  const key = (orgId: string, cpId: string) => `${orgId}/${cpId}`;
  const track = <T>(p: Promise<T>): Promise<T> => {
    pending.add(p);
    p.finally(() => pending.delete(p)).catch(() => {});
    return p;
  };
  /**
   * A timestamp from a charger: used when it parses, is not before the service calendar (2000-01-01:
   * a charger whose clock was never set says 1970) and is not ahead of the service's clock by more
   * than 5 minutes; the service's clock otherwise.
   */
  const chargerTime = (s: unknown): Date => {
    const now = clock.now();
    if (typeof s !== 'string') return now;
    const t = new Date(s);
    return timeProblem(t.getTime(), now.getTime()) ? now : t;
  };

  const rpc = new RPCServer({
    protocols: [...SUBPROTOCOLS],
    strictMode: true,
    callTimeoutMs: settings.commandTimeoutMs,
    pingIntervalMs: 60_000,
    respondWithDetailedErrors: false,
    // ws's default is 100 MiB; a larger frame closes the connection with 1009 before it is buffered.
    wssOptions: { maxPayload: settings.maxFrameBytes },
  });
  // ws reports server-level failures here; an 'error' nobody listens for would be thrown.
  rpc.on('error', (err: unknown) => entries.failed('hub.ocpp-server', err));

  /** A hash to compare with when the charge point is unknown, so unknown and wrong cost the same. */
  const NO_HASH = hashPassword(randomUUID());
  const targets = new WeakMap<IncomingMessage, { orgId: string; cpId: string }>();

  rpc.auth(async (accept: (s?: Record<string, unknown>, p?: string | false) => void, reject: (code: number, msg: string) => void, handshake: Handshake) => {
    try {
      const target = targets.get(handshake.request);
      if (!target) return reject(400, 'Bad Request');
      const ip = addressOf(handshake.request);
      const header = handshake.headers.authorization;
      // A charger that authenticated before passes while its address is blocked (a site's other
      // chargers behind one address are not locked out by one misconfigured neighbour).
      const credential = typeof header === 'string' && header ? `ocpp ${target.orgId} ${header}` : undefined;
      try {
        await failedAuth.refuseIfBlocked(ip, credential);
      } catch (e) {
        if (!(e instanceof AppError) || e.status !== 429) throw e;
        refusals.inc({ reason: 'auth_throttled' });
        return reject(429, 'Too Many Requests');
      }
      const cp = await store.chargePoint(db, target.orgId, target.cpId);
      const given: Buffer | undefined = handshake.password;
      const expected = Buffer.from(cp?.password_hash ?? NO_HASH, 'hex');
      const actual = Buffer.from(hashPassword(given ?? Buffer.alloc(0)), 'hex');
      const matches = expected.length === actual.length && timingSafeEqual(expected, actual);
      // One answer for an unknown organisation, an unknown charge point and a wrong password.
      if (!cp || !given || !matches) {
        refusals.inc({ reason: 'auth_failed' });
        await failedAuth.recordFailure(ip);
        return reject(401, 'Unauthorized');
      }
      if (credential) await failedAuth.recordSuccess(credential);
      // The charger's preference order (its Sec-WebSocket-Protocol list) among those served.
      const protocol = [...(handshake.protocols as Set<string>)].find((p) => (SUBPROTOCOLS as readonly string[]).includes(p));
      if (!protocol) {
        refusals.inc({ reason: 'bad_subprotocol' });
        return reject(400, 'No supported subprotocol (ocpp2.0.1, ocpp1.6)');
      }
      accept({ orgId: target.orgId, cpId: cp.charge_point_id, siteId: cp.site_id, assetId: cp.asset_id } satisfies Session, protocol);
    } catch (err) {
      entries.failed('hub.ocpp-handshake', err);
      reject(500, 'Internal Server Error');
    }
  });

  /** What a handler ran into, as the CALLERROR the charger gets: never the internal text (logged here). */
  function callFailure(s: Session, action: string, err: unknown): Error {
    if (isRpcError(err)) return err;
    const code = (err as { code?: unknown })?.code;
    if (typeof code === 'string' && code.startsWith('22')) {
      // A PostgreSQL data exception (class 22: out of range, bad date, bad text): a value the charger sent.
      refusals.inc({ reason: 'store_refused' });
      log.warn({ err, orgId: s.orgId, cp: s.cpId, action }, "hub: a charger's value could not be stored");
      return createRPCError('PropertyConstraintViolation', 'A value is outside what the service accepts', {}) as unknown as Error;
    }
    refusals.inc({ reason: 'internal_error' });
    log.error({ err, orgId: s.orgId, cp: s.cpId, action }, 'hub: OCPP call failed');
    return createRPCError('InternalError', 'Internal error', {}) as unknown as Error;
  }

  /**
   * Every handler's failure goes through callFailure; the handlers themselves stay as they are.
   * OCPP-J has a charger wait for each answer before its next CALL; one that does not gets at most
   * MAX_CALLS_IN_FLIGHT handled at once, the rest a CALLERROR (counted as bad messages).
   */
  function guardHandlers(client: RpcClient, s: Session, tooMany: () => void) {
    const handle = client.handle.bind(client) as (...a: unknown[]) => void;
    let inFlight = 0;
    const guard =
      <C>(action: string, fn: (c: C) => unknown) =>
      async (c: C): Promise<unknown> => {
        if (inFlight >= MAX_CALLS_IN_FLIGHT) {
          tooMany();
          throw createRPCError('GenericError', 'Too many calls in progress: wait for the answers', {});
        }
        inFlight++;
        try {
          return await fn(c);
        } catch (err) {
          throw callFailure(s, action, err);
        } finally {
          inFlight--;
        }
      };
    client.handle = (<C>(a: string | ((c: C) => unknown), b?: (c: C) => unknown) =>
      typeof a === 'function' ? handle(guard('*', a)) : handle(a, guard(a, b!))) as RpcClient['handle'];
  }

  /** Closes a connection that sends more than the limit of bad messages in a minute (of the service clock); returns the count. */
  function limitBadMessages(client: RpcClient, s: Session): () => void {
    const times: number[] = [];
    let closing = false;
    const bad = () => {
      if (closing) return;
      const now = clock.now().getTime();
      while (times.length && times[0] <= now - 60_000) times.shift();
      times.push(now);
      if (times.length <= settings.badMessagesPerMinute) return;
      closing = true;
      refusals.inc({ reason: 'bad_message_limit' });
      log.warn({ orgId: s.orgId, cp: s.cpId }, 'hub: too many bad messages, connection closed');
      entries.settle('hub.ocpp-close', client.close({ code: 1008, reason: 'Too many bad messages' }));
    };
    client.on('badMessage', entries.wrap('hub.ocpp-bad-message', bad));
    client.on(
      'strictValidationFailure',
      entries.wrap('hub.ocpp-bad-message', (e: { outbound?: boolean; isCall?: boolean }) => !e.outbound && e.isCall && bad()),
    );
    client.on(
      'socketError',
      entries.wrap('hub.ocpp-socket', (err: { code?: string }) => {
        if (err?.code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH') {
          refusals.inc({ reason: 'oversized_frame' });
          log.warn({ orgId: s.orgId, cp: s.cpId }, 'hub: frame over the size limit, connection closed (1009)');
        }
      }),
    );
    return bad;
  }

  rpc.on(
    'client',
    entries.wrap('hub.ocpp-connection', onClient, (_err, client: RpcClient) => void client.close({ code: 1011, force: true }).catch(() => {})),
  );

  function onClient(client: RpcClient) {
    const s = client.session;
    // Every CALLERROR leaves through this (ocpp-rpc writes its answers with sendRaw).
    const sendRaw = client.sendRaw.bind(client);
    client.sendRaw = (message: string) => sendRaw(message.startsWith('[4,') ? plainCallError(message) : message);
    guardHandlers(client, s, limitBadMessages(client, s));
    const version = client.protocol as OcppVersion;
    const k = key(s.orgId, s.cpId);
    const previous = clients.get(k);
    clients.set(k, client);
    if (previous && previous !== client) entries.settle('hub.ocpp-close', previous.close({ code: 1000, reason: 'Replaced by a new connection' }));
    entries.settle('hub.ocpp-connected', track(store.connected(db, s.orgId, s.cpId, instanceId, clock.now(), version)));
    client.on(
      'close',
      entries.wrap('hub.ocpp-close', () => {
        if (clients.get(k) !== client) return; // replaced: the new connection holds it
        clients.delete(k);
        entries.settle('hub.ocpp-offline', track(offline(s)));
      }),
    );
    // The connection's subprotocol names the schemas ocpp-rpc checks its calls against.
    if (version === 'ocpp1.6') handle16(client as RpcClient<Calls16>, s);
    else handle201(client as RpcClient<Calls201>, s);
    // No wildcard handler: an action not handled here is answered NotImplemented by ocpp-rpc
    // before any schema check (a wildcard would be validated first and answer ProtocolError).
  }

  /** The connection ended: each connector it reported goes UNKNOWN (excluded from reliability). */
  async function offline(s: Session) {
    const k = key(s.orgId, s.cpId);
    if (clients.has(k)) return; // it reconnected here already
    const still = await store.disconnected(db, s.orgId, s.cpId, instanceId);
    if (!still) return;
    const now = clock.now();
    const connectors = await store.reportedConnectors(db, s.orgId, s.cpId);
    if (clients.has(k)) return;
    for (const c of connectors) {
      await store.insertStatus(
        db,
        s.orgId,
        { charge_point_id: s.cpId, connector_id: c, status: 'Offline', ocpi_status: 'UNKNOWN', error_code: null, ts: now },
        now,
      );
    }
  }

  async function boot(s: Session, b: { vendor: string; model: string; firmware: string | null; serial: string | null }) {
    const now = clock.now();
    await store.booted(db, s.orgId, s.cpId, b, now);
    return { status: 'Accepted', currentTime: now.toISOString(), interval: settings.heartbeatIntervalS };
  }

  async function heartbeat(s: Session) {
    const now = clock.now();
    await store.heartbeat(db, s.orgId, s.cpId, now);
    return { currentTime: now.toISOString() };
  }

  async function status(s: Session, connectorId: number, st: string, ocpi: string | undefined, errorCode: string | null, ts: unknown) {
    const now = clock.now();
    await store.insertStatus(
      db,
      s.orgId,
      { charge_point_id: s.cpId, connector_id: connectorId, status: st, ocpi_status: ocpi ?? 'UNKNOWN', error_code: errorCode, ts: chargerTime(ts) },
      now,
    );
  }

  /** Stores register samples against the transaction and the readings as telemetry of the charger asset. */
  /**
   * Meter values are written by group commit: a message waits for the next flush, and one flush
   * writes every message queued since the last one in one transaction (register samples, then the
   * telemetry rows of each organisation in one batch), so a thousand chargers cost a few store
   * transactions a second rather than one each. The CALLRESULT goes out after the commit. A flush
   * that fails is retried message by message, so one bad message fails alone.
   */
  interface MeterWrite {
    s: Session;
    connectorId: number;
    txId: string | null;
    /** The stop instant when this message stops its transaction (samples after it are outside it). */
    stopAt: Date | null;
    values: Sampled[];
    done: (err?: unknown) => void;
  }
  const meterQueue: MeterWrite[] = [];
  let flushing: Promise<void> | null = null;

  /**
   * Judges and writes a batch in one transaction: the transactions' states are read (locked), each
   * sample judged in time order per message (meter-rules.ts), the accepted and flagged register
   * samples stored, each transaction's latest accepted reading and anomaly counts written once, and
   * the accepted readings written as telemetry of the charger asset, each organisation's in one batch.
   */
  async function writeMeters(batch: MeterWrite[]) {
    const now = clock.now();
    const nowMs = now.getTime();
    const byOrg = new Map<string, CanonicalRow[]>();
    await db.tx(async (q) => {
      const txKeys = new Map<string, { orgId: string; txId: string }>();
      const cpKeys = new Map<string, { orgId: string; cpId: string }>();
      for (const m of batch) {
        if (m.txId) txKeys.set(`${m.s.orgId}/${m.txId}`, { orgId: m.s.orgId, txId: m.txId });
        else cpKeys.set(key(m.s.orgId, m.s.cpId), { orgId: m.s.orgId, cpId: m.s.cpId });
      }
      const states = new Map<string, { meter: TxMeter; startWh: number; riseAt: Date | null; anomalies: AnomalyCounts; moved: boolean; counted: boolean }>();
      for (const r of await store.meterStates(q, [...txKeys.values()])) {
        const lastWh = Number(r.last_wh);
        states.set(`${r.org_id}/${r.transaction_id}`, {
          meter: {
            startMs: r.started_at.getTime(),
            stopMs: r.stopped_at?.getTime() ?? null,
            ratedKw: Number(r.max_power_kw ?? 0),
            known: r.meter_start_known,
            lastMs: (r.last_meter_at ?? r.started_at).getTime(),
            lastWh,
          },
          startWh: Number(r.start_wh), // a first accepted sample sets it when not known
          riseAt: null,
          anomalies: structuredClone(r.meter_anomalies ?? {}),
          moved: false,
          counted: false,
        });
      }
      const rated = await store.ratedPower(q, [...cpKeys.values()]);
      const samples = new Map<string, { orgId: string; txId: string; ts: Date; wh: number; flag: string | null }>();
      for (const m of batch) {
        const st = m.txId ? states.get(`${m.s.orgId}/${m.txId}`) : undefined;
        const ratedKw = st ? st.meter.ratedKw : (rated.get(key(m.s.orgId, m.s.cpId)) ?? 0);
        const note = (reason: MeterAnomaly) => {
          if (!st) return;
          countAnomaly(st.anomalies, reason, now);
          st.counted = true;
        };
        if (st && m.stopAt) st.meter.stopMs = Math.min(st.meter.stopMs ?? Infinity, m.stopAt.getTime());
        const records = [];
        const ordered = [...m.values].sort((x, y) => (x.ts.getTime() || 0) - (y.ts.getTime() || 0));
        for (const v of ordered) {
          if (v.wh === null && v.powerKw === null) continue;
          const tsMs = v.ts.getTime();
          const bad = timeProblem(tsMs, nowMs);
          if (bad) {
            note(bad);
            continue;
          }
          if (st && (tsMs < st.meter.startMs || (st.meter.stopMs !== null && tsMs > st.meter.stopMs))) {
            note('outside_transaction');
            continue;
          }
          let energyOk = false;
          if (v.wh !== null) {
            if (!st) {
              energyOk = registerInRange(v.wh);
              if (!energyOk) note('register_out_of_range');
            } else {
              const before = st.meter.lastWh;
              const wasKnown = st.meter.known;
              const verdict = judgeRegister(st.meter, tsMs, v.wh);
              const k = `${m.s.orgId}/${m.txId}/${tsMs}`;
              if (verdict.kind === 'accept') {
                energyOk = true;
                st.moved = true;
                if (!wasKnown) st.startWh = v.wh;
                else if (v.wh > before) st.riseAt = v.ts;
                samples.set(k, { orgId: m.s.orgId, txId: m.txId!, ts: v.ts, wh: v.wh, flag: null });
              } else if (verdict.kind === 'duplicate') {
                energyOk = true;
              } else {
                note(verdict.reason);
                if (verdict.kind === 'flag' && !samples.has(k)) samples.set(k, { orgId: m.s.orgId, txId: m.txId!, ts: v.ts, wh: v.wh, flag: verdict.reason });
              }
            }
          }
          let powerOk = false;
          if (v.powerKw !== null) {
            powerOk = powerInRange(v.powerKw, ratedKw);
            if (!powerOk) note('power_out_of_range');
          }
          if (!energyOk && !powerOk) continue;
          records.push({
            asset_id: m.s.assetId,
            ts: v.ts.toISOString(),
            ...(powerOk && { power_kw: v.powerKw }),
            ...(energyOk && { energy_kwh: v.wh! / 1000 }),
            charge_point_id: m.s.cpId,
            connector_id: m.connectorId,
            ...(m.txId && { transaction_id: m.txId }),
            origin: 'ocpp',
          });
        }
        if (records.length) {
          const rows = writer.judge(m.s.orgId, records).flatMap((j) => (j.ok ? [j.row] : []));
          byOrg.set(m.s.orgId, [...(byOrg.get(m.s.orgId) ?? []), ...rows]);
        }
      }
      await store.insertSamples(q, [...samples.values()]);
      const moved = [];
      for (const [k, st] of states) {
        if (!st.moved && !st.counted) continue;
        const [orgId, txId] = [k.slice(0, k.indexOf('/')), k.slice(k.indexOf('/') + 1)];
        moved.push({
          orgId,
          txId,
          startWh: st.startWh,
          lastWh: st.meter.lastWh,
          lastAt: new Date(st.meter.lastMs),
          riseAt: st.riseAt,
          anomalies: st.anomalies,
          known: st.meter.known,
        });
      }
      await store.meterMoved(q, moved);
      for (const [orgId, rows] of byOrg) await writer.writeInTx(q, orgId, now, rows);
    });
    // The live stream is published after the commit without holding the next flush (or the
    // chargers' answers) behind the bus's acknowledgement.
    for (const [orgId, rows] of byOrg) track(writer.committed(orgId, now, rows).catch((err) => log.warn({ err }, 'hub: telemetry stream publish failed')));
  }

  function flush() {
    if (flushing) return;
    flushing = (async () => {
      while (meterQueue.length) {
        const batch = meterQueue.splice(0, 500);
        try {
          await writeMeters(batch);
          for (const m of batch) m.done();
        } catch {
          for (const m of batch) {
            try {
              await writeMeters([m]);
              m.done();
            } catch (err) {
              m.done(err);
            }
          }
        }
      }
      flushing = null;
    })();
    track(flushing);
  }

  /** Queues a message's meter values for the next flush; resolves once they are judged and committed. */
  function meter(s: Session, connectorId: number, txId: string | null, values: Sampled[], stopAt: Date | null = null): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      meterQueue.push({ s, connectorId, txId, stopAt, values, done: (err) => (err ? reject(err) : resolve()) });
      flush();
    });
  }

  /** Transaction ids of the link (ocpp id -> the hub's), per charger: MeterValues name theirs on every message. */
  const txIds = new Map<string, { transaction_id: string; connector_id: number }>();
  async function txOf(s: Session, ocppId: string) {
    const k = `${key(s.orgId, s.cpId)}/${ocppId}`;
    const hit = txIds.get(k);
    if (hit) return hit;
    const row = await store.transactionByOcpp(db, s.orgId, s.cpId, ocppId);
    if (!row) return null;
    const v = { transaction_id: row.transaction_id, connector_id: row.connector_id };
    if (!row.stopped_at) {
      if (txIds.size > 100_000) txIds.clear();
      txIds.set(k, v);
    }
    return v;
  }
  const forget = (s: Session, ocppId: string) => txIds.delete(`${key(s.orgId, s.cpId)}/${ocppId}`);

  async function startTx(
    q: Queryable,
    s: Session,
    t: { connectorId: number; ocppId: string; version: OcppVersion; idTag: string | null; at: Date; meterStartWh: number | null },
  ) {
    const now = clock.now();
    const schedule = await store.inForce(q, s.orgId, s.siteId, t.at);
    const transactionId = randomUUID();
    // An absurd start register is not the session's start: the first accepted sample is (meter-rules.ts).
    const anomalies: AnomalyCounts = {};
    let startWh = t.meterStartWh;
    if (startWh !== null && !registerInRange(startWh)) {
      countAnomaly(anomalies, 'register_out_of_range', now);
      startWh = null;
    }
    const fresh = await store.insertTransaction(
      q,
      s.orgId,
      {
        transaction_id: transactionId,
        site_id: s.siteId,
        charge_point_id: s.cpId,
        connector_id: t.connectorId,
        ocpp_transaction_id: t.ocppId,
        ocpp_version: t.version,
        id_tag: t.idTag,
        started_at: t.at,
        meter_start_wh: String(startWh ?? 0),
        last_meter_wh: String(startWh ?? 0),
        schedule_version: schedule?.version ?? null,
        meter_start_known: startWh !== null,
        meter_anomalies: anomalies,
      },
      now,
    );
    if (!fresh) return (await store.transactionByOcpp(q, s.orgId, s.cpId, t.ocppId))!.transaction_id;
    if (startWh !== null) await store.sample(q, s.orgId, transactionId, t.at, startWh);
    return transactionId;
  }

  function handle16(client: RpcClient<Calls16>, s: Session) {
    client.handle('BootNotification', ({ params }) =>
      boot(s, {
        vendor: params.chargePointVendor,
        model: params.chargePointModel,
        firmware: params.firmwareVersion ?? null,
        serial: params.chargePointSerialNumber ?? params.chargeBoxSerialNumber ?? null,
      }),
    );
    client.handle('Heartbeat', () => heartbeat(s));
    client.handle('StatusNotification', async ({ params }) => {
      const connectorId = connectorOf(params.connectorId, 'connectorId', 0); // 0: the whole charge point
      await status(s, connectorId, params.status, OCPI_16[params.status], params.errorCode === 'NoError' ? null : params.errorCode, params.timestamp);
      return {};
    });
    client.handle('Authorize', () => ({ idTagInfo: { status: 'Accepted' } }));
    client.handle('StartTransaction', async ({ params }) => {
      const connectorId = connectorOf(params.connectorId, 'connectorId', 1); // a transaction is on a connector, never 0
      const ocppId = await store.nextOcppTransactionId(db);
      const at = chargerTime(params.timestamp);
      const transactionId = await db.tx((q) =>
        startTx(q, s, { connectorId, ocppId: String(ocppId), version: 'ocpp1.6', idTag: params.idTag, at, meterStartWh: params.meterStart }),
      );
      // The start register is the session's first reading everywhere, not only in the hub's own
      // table: judged like any sample, it reaches the charger's telemetry, so the site's energy
      // ledger counts the first interval too (one session, one energy; issue 36).
      await meter(s, connectorId, transactionId, [{ ts: at, wh: params.meterStart, powerKw: null }]);
      return { transactionId: ocppId, idTagInfo: { status: 'Accepted' } };
    });
    client.handle('MeterValues', async ({ params }) => {
      const connectorId = connectorOf(params.connectorId, 'connectorId', 0); // 0: the main meter
      const tx = params.transactionId !== undefined ? await txOf(s, String(params.transactionId)) : null;
      await meter(
        s,
        tx?.connector_id ?? connectorId,
        tx?.transaction_id ?? null,
        (params.meterValue ?? []).map((mv) => readMeterValue(mv, 'ocpp1.6')),
      );
      return {};
    });
    client.handle('StopTransaction', async ({ params }) => {
      const tx = await store.transactionByOcpp(db, s.orgId, s.cpId, String(params.transactionId));
      if (!tx) {
        log.warn({ orgId: s.orgId, cp: s.cpId, transactionId: params.transactionId }, 'hub: StopTransaction for an unknown transaction');
        return { idTagInfo: { status: 'Accepted' } };
      }
      const at = chargerTime(params.timestamp);
      const data = (params.transactionData ?? []).map((mv) => readMeterValue(mv, 'ocpp1.6'));
      // The stop reading is judged as the transaction's last sample; the stop keeps the latest accepted one.
      await meter(s, tx.connector_id, tx.transaction_id, [...data, { ts: at, wh: params.meterStop, powerKw: null }], at);
      await store.stop(db, s.orgId, tx.transaction_id, at, params.reason ?? 'Local', new Date(clock.now().getTime() + CLOCK_TOLERANCE_MS));
      forget(s, String(params.transactionId));
      return { idTagInfo: { status: 'Accepted' } };
    });
  }

  function handle201(client: RpcClient<Calls201>, s: Session) {
    client.handle('BootNotification', ({ params }) =>
      boot(s, {
        vendor: params.chargingStation.vendorName,
        model: params.chargingStation.model,
        firmware: params.chargingStation.firmwareVersion ?? null,
        serial: params.chargingStation.serialNumber ?? null,
      }),
    );
    client.handle('Heartbeat', () => heartbeat(s));
    client.handle('StatusNotification', async ({ params }) => {
      // 2.0.1 reports per EVSE and connector; the hub counts EVSEs as its connectors.
      const evseId = connectorOf(params.evseId, 'evseId', 0);
      connectorOf(params.connectorId, 'connectorId', 0);
      await status(s, evseId, params.connectorStatus, OCPI_201[params.connectorStatus], null, params.timestamp);
      return {};
    });
    client.handle('Authorize', () => ({ idTokenInfo: { status: 'Accepted' } }));
    client.handle('MeterValues', async ({ params }) => {
      const evseId = connectorOf(params.evseId, 'evseId', 0); // 0: the main meter
      await meter(
        s,
        evseId,
        null,
        (params.meterValue ?? []).map((mv) => readMeterValue(mv, 'ocpp2.0.1')),
      );
      return {};
    });
    client.handle('TransactionEvent', async ({ params }) => {
      const ocppId: string = params.transactionInfo.transactionId;
      const at = chargerTime(params.timestamp);
      const values: Sampled[] = (params.meterValue ?? []).map((mv) => readMeterValue(mv, 'ocpp2.0.1'));
      if (params.evse !== undefined) {
        connectorOf(params.evse.id, 'evse.id', 1); // a transaction is on an EVSE, never 0
        if (params.evse.connectorId !== undefined) connectorOf(params.evse.connectorId, 'evse.connectorId', 1);
      }
      let tx = await txOf(s, ocppId);
      let connectorId = params.evse?.id ?? tx?.connector_id ?? 1;
      if (!tx) {
        // Started, or the first event the hub sees of a transaction begun while it was not connected.
        // Its start reading is the earliest usable register it carries, and it began no later than that.
        const nowMs = clock.now().getTime();
        const first = values
          .filter((v) => v.wh !== null && registerInRange(v.wh) && !timeProblem(v.ts.getTime(), nowMs))
          .sort((x, y) => x.ts.getTime() - y.ts.getTime())[0];
        const startAt = first && first.ts.getTime() < at.getTime() ? first.ts : at;
        await db.tx((q) =>
          startTx(q, s, { connectorId, ocppId, version: 'ocpp2.0.1', idTag: params.idToken?.idToken ?? null, at: startAt, meterStartWh: first?.wh ?? null }),
        );
        tx = await txOf(s, ocppId);
      }
      connectorId = tx!.connector_id;
      const ended = params.eventType === 'Ended';
      if (values.length) await meter(s, connectorId, tx!.transaction_id, values, ended ? at : null);
      if (ended) {
        await store.stop(
          db,
          s.orgId,
          tx!.transaction_id,
          at,
          params.transactionInfo.stoppedReason ?? 'Local',
          new Date(clock.now().getTime() + CLOCK_TOLERANCE_MS),
        );
        forget(s, ocppId);
      }
      return params.idToken ? { idTokenInfo: { status: 'Accepted' } } : {};
    });
  }

  /** Sends a CALL to a charger held here; null when it is not held here. */
  async function callLocal(orgId: string, cpId: string, action: string, params: unknown): Promise<CommandOutcome | null> {
    const c = clients.get(key(orgId, cpId));
    if (!c) return null;
    try {
      const result = await c.call(action, params, { callTimeoutMs: settings.commandTimeoutMs });
      return { delivery: 'local', result, error: null };
    } catch (err) {
      const e = err as { name?: string; rpcErrorCode?: string; message?: string };
      if (e.name === 'TimeoutError') return { delivery: 'timeout', result: null, error: 'The charger did not answer in time' };
      return { delivery: 'error', result: null, error: e.rpcErrorCode ? `${e.rpcErrorCode}: ${e.message ?? ''}`.trim() : 'The call failed' };
    }
  }

  return {
    instanceId,
    /** Chargers connected to this instance. */
    connections: () => clients.size,
    /** Whether this instance holds the charger's connection. */
    holds: (orgId: string, cpId: string) => clients.has(key(orgId, cpId)),

    /** The origin this instance listens on as a ws:// URL (its HTTP server's address), if it listens. */
    listeningUrl(): string | null {
      const a = listening?.address();
      if (!a || typeof a === 'string') return null;
      const host = a.address === '0.0.0.0' || a.address === '::' ? 'localhost' : a.family === 'IPv6' ? `[${a.address}]` : a.address;
      return `ws://${host}:${a.port}`;
    },

    async start(server: Server | undefined) {
      listening = server;
      const onUpgrade = (req: IncomingMessage, socket: Socket, head: Buffer) => {
        // Node takes its own error listener off an upgraded socket: a reset before ocpp-rpc or ws
        // adds theirs would otherwise be an 'error' nobody handles.
        socket.on('error', () => {});
        const target = ocppTarget(req.url);
        if (target === null) {
          // Node ends upgrades nobody listens for; with this listener it would not, so when no other
          // module serves WebSockets an upgrade to any other path is ended here.
          if (server!.listenerCount('upgrade') === 1) socket.destroy();
          return;
        }
        if ('refused' in target) {
          refusals.inc({ reason: 'bad_path' });
          return refuseUpgrade(socket, 400, target.refused);
        }
        if (!wellFormedSubprotocols(req.headers['sec-websocket-protocol'])) {
          refusals.inc({ reason: 'bad_subprotocol' });
          return refuseUpgrade(socket, 400, 'Malformed Sec-WebSocket-Protocol');
        }
        targets.set(req, target);
        return rpc.handleUpgrade(req, socket, head);
      };
      server?.on(
        'upgrade',
        entries.wrap('hub.upgrade', onUpgrade, (_err, _req, socket: Socket) => refuseUpgrade(socket, 500)),
      );
      await listenForCommands();
    },

    /**
     * Sends a CALL to a charger wherever it is connected: directly when this instance holds it,
     * else over the bus to the instance that does (its answer comes back the same way).
     */
    async command(orgId: string, cp: ChargePointRow, action: string, params: unknown): Promise<CommandOutcome> {
      const local = await callLocal(orgId, cp.charge_point_id, action, params);
      if (local) return local;
      const holder = (await store.chargePoint(db, orgId, cp.charge_point_id))?.connected_instance;
      if (!holder || holder === instanceId) return { delivery: 'not_connected', result: null, error: 'The charger is not connected' };
      const id = randomUUID();
      const answer = new Promise<CommandOutcome>((resolve) => {
        const timer = setTimeout(() => {
          replies.delete(id);
          resolve({ delivery: 'timeout', result: null, error: 'No answer from the instance holding the charger' });
        }, settings.commandTimeoutMs + 2_000);
        timer.unref?.();
        replies.set(id, (o) => {
          clearTimeout(timer);
          replies.delete(id);
          resolve(o);
        });
      });
      await bus.publish(`hub.cmd.${holder}`, { id, reply: instanceId, orgId, cpId: cp.charge_point_id, action, params });
      return answer;
    },

    /** Closes every charger connection (they reconnect to another instance). */
    async closing() {
      await rpc.close({ code: 1001, reason: 'Service stopping', force: true }).catch(() => {});
    },

    async stop() {
      stopped = true;
      clearTimeout(retry);
      for (const u of unsubs.splice(0)) await u().catch(() => {});
      await Promise.allSettled([...pending]);
    },
  };
}

export type OcppGateway = ReturnType<typeof createOcppGateway>;
