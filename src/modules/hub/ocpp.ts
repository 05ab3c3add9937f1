// The charger side: an OCPP-J endpoint (1.6 and 2.0.1) on the service's own HTTP server, through
// ocpp-rpc (RPC framing, subprotocol negotiation, HTTP Basic credentials, strict validation of every
// CALL and CALLRESULT against the official JSON schemas; malformed frames get a CALLERROR and the
// connection stays, up to a limit a minute). Charge points connect to
// `<OCPP_PATH>/<org_id>/<charge_point_id>`. The edge (docs/security.md, "The device edge"; decisions
// 0270-0273): the path is checked here before ocpp-rpc sees it (400); an unknown organisation, an
// unknown charge point and a wrong password are one answer (401), counted against the address's
// failed-authentication limit (429 past it, before any password is checked); frames are limited in
// size (1009); a CALLERROR carries no data the charger sent and no internal error text.
//
// This file is the gateway's core: connections, authentication, limits and per-connection state.
// It only dispatches messages: each action has its handler in ocpp/v16/ or ocpp/v201/ (one file
// each, typed by the types generated from the official schemas, ocpp/generated/), listed in that
// version's dispatch table (index.ts). The services handlers share are in ocpp/: station.ts (boot,
// heartbeat, status), transactions.ts, meter-writer.ts (meter values as telemetry, by group
// commit), commands.ts (CALLs to chargers, across instances over the bus).
import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders, IncomingMessage, Server } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import type { FastifyBaseLogger } from 'fastify';
import ocppRpc from 'ocpp-rpc';
import type { Bus } from '../../infra/bus/index.ts';
import type { Db } from '../../infra/db/index.ts';
import type { FailedAuthLimit } from '../../platform/auth-failures.ts';
import { clientAddressResolver, forwardedTlsResolver } from '../../platform/client-address.ts';
import type { Clock } from '../../platform/clock.ts';
import type { EntryGuard } from '../../platform/entry-guard.ts';
import { AppError } from '../../platform/errors.ts';
import type { Metrics } from '../../platform/metrics.ts';
import type { TelemetryWriter } from '../telemetry/index.ts';
import { createAuthoriser } from './ocpp/authorisation.ts';
import { type CommandOutcome, createCommandRouter, type OcppCall } from './ocpp/commands.ts';
import type { CallContext, ChargerSession, OcppServices, OcppSettings } from './ocpp/context.ts';
import {
  isRpcError,
  ocppTarget,
  type OcppVersion,
  plainCallError,
  refuseUpgrade,
  rpcError,
  storableText,
  SUBPROTOCOLS,
  wellFormedSubprotocols,
} from './ocpp/edge.ts';
import { schemaViolation } from './ocpp/edge.ts';
import type { HubTlsConfig } from './config.ts';
import { createMeterWriter } from './ocpp/meter-writer.ts';
import { certificateNamesChargePoint, profileReached } from './ocpp/security.ts';
import { chargerTimeOn, createStationEvents } from './ocpp/station.ts';
import { createTransactionLinks } from './ocpp/transactions.ts';
import { handlers16 } from './ocpp/v16/index.ts';
import { handlers201 } from './ocpp/v201/index.ts';
import { type ChargePointRow, hubStore as store } from './store.ts';

export { OCPP_PATH, ocppTarget, type OcppVersion, plainCallError, SUBPROTOCOLS } from './ocpp/edge.ts';
export type { CommandOutcome, OcppCall } from './ocpp/commands.ts';
export type { OcppSettings } from './ocpp/context.ts';

const { RPCServer } = ocppRpc;

/** SHA-256 of a charge point password (the service makes them: 20 random characters, about 119 bits). */
export const hashPassword = (pw: string | Buffer) => createHash('sha256').update(pw).digest('hex');

/** CALLs of one connection handled at once (OCPP-J: one; chargers that pipeline get some slack). */
const MAX_CALLS_IN_FLIGHT = 8;
/**
 * What the hub may hold for one connection that the charger has not read (its socket's write
 * buffer): far above its largest CALL (a full local list, about 120 KB) and a few answers. A charger
 * that sends CALLs and never reads the answers is closed past it; until the ping found it (up to two
 * minutes) the answers were kept in memory, as fast as it sent.
 */
const MAX_UNREAD_BYTES = 1024 * 1024;

/** The parts of ocpp-rpc's handshake read here. */
interface Handshake {
  request: IncomingMessage;
  headers: IncomingHttpHeaders;
  protocols: Set<string>;
  password: Buffer | undefined;
}

// ocpp-rpc's types are loose where handlers are concerned; these are the parts used here.
interface RpcClient {
  identity: string;
  protocol: string;
  session: ChargerSession;
  /** The upgrade request: its socket is the connection's. */
  handshake: { request: IncomingMessage };
  handle(method: string, fn: (c: { params: unknown }) => unknown): void;
  /** A CALLRESULT's payload: a JSON object, checked against the action's schema. */
  call(method: string, params: unknown, opts?: { callTimeoutMs?: number }): Promise<Record<string, unknown>>;
  close(opts?: { code?: number; reason?: string; force?: boolean }): Promise<unknown>;
  on(ev: string, fn: (e: never) => void): void;
  sendRaw(message: string): void;
}

/** A handler as the gateway calls it: with the params ocpp-rpc has validated against the action's schema. */
type Validated = (ctx: CallContext, params: unknown) => unknown;

/** Each version's dispatch table (the connection's subprotocol names the schemas ocpp-rpc checks its calls against). */
const DISPATCH: Record<OcppVersion, [string, Validated][]> = {
  'ocpp1.6': Object.entries(handlers16) as [string, Validated][],
  'ocpp2.0.1': Object.entries(handlers201) as [string, Validated][],
};

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
  /** The TLS listener's certificate, key and port (security profiles 2 and 3); null: none. */
  tls?: HubTlsConfig | null;
  /** The address the service listens on (HOST): the TLS listener listens there too. */
  host?: string;
}) {
  const { db, bus, clock, log, writer, settings, entries, failedAuth } = deps;
  const addressOf = clientAddressResolver(deps.trustProxy);
  const forwardedTls = forwardedTlsResolver(deps.trustProxy);
  const refusals = deps.metrics.counter({
    name: 'hub_ocpp_refusals_total',
    help: 'What the OCPP edge refused, by reason: bad_path, auth_failed, below_security_profile, auth_throttled, bad_subprotocol, oversized_frame, bad_message_limit, unread_answers, store_refused, internal_error',
    labelNames: ['reason'],
  });
  /** Where this instance listens (for the endpoint chargers are given when HUB_OCPP_PUBLIC_URL is unset). */
  let listening: Server | undefined;
  /** The TLS listener for chargers (wss://), when configured. */
  let tlsServer: HttpsServer | undefined;
  const instanceId = randomUUID();
  const clients = new Map<string, RpcClient>(); // `${org}/${cp}` -> connection held here
  const pending = new Set<Promise<unknown>>(); // writes started by connection events
  const key = (orgId: string, cpId: string) => `${orgId}/${cpId}`;
  const track = <T>(p: Promise<T>): Promise<T> => {
    pending.add(p);
    p.finally(() => pending.delete(p)).catch(() => {});
    return p;
  };
  // A charger's connection writes (connected, then offline when it leaves) in the order they were
  // asked for, one after another: on a pool two could otherwise cross, and the offline write of a
  // connection that has just closed clear the flag that its successor on this instance has set.
  const writesOf = new Map<string, Promise<void>>();
  const inOrder = (k: string, write: () => Promise<void>): Promise<void> => {
    const next = (writesOf.get(k) ?? Promise.resolve()).then(write);
    // The chain's end, never rejected (the caller settles `next`); the last one removes itself.
    const tail: Promise<void> = next
      .catch(() => {})
      .finally(() => {
        if (writesOf.get(k) === tail) writesOf.delete(k);
      });
    writesOf.set(k, tail);
    return next;
  };

  /** What the hub does once a charger's boot is accepted (decision 0489); set by the module. */
  let onBooted: ((s: ChargerSession, version: OcppVersion) => Promise<void>) | undefined;
  const services: OcppServices = {
    db,
    clock,
    log,
    settings,
    chargerTime: chargerTimeOn(clock),
    station: createStationEvents({ db, clock }),
    transactions: createTransactionLinks({ db, clock }),
    meters: createMeterWriter({ db, clock, log, writer, track }),
    auth: createAuthoriser({ db, clock }),
    // After the BootNotification's answer has gone out: ocpp-rpc sends it when the handler's
    // promise settles, before the next turn of the event loop.
    booted: (s, version) => {
      const then = onBooted;
      if (then) entries.settle('hub.booted', track(new Promise((resolve) => setImmediate(resolve)).then(() => then(s, version))));
    },
  };
  const commands = createCommandRouter({ db, bus, log, entries, settings, instanceId, connection: (orgId, cpId) => clients.get(key(orgId, cpId)) });

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
      // The transport (decision 0430): the hub's TLS listener (with the client certificate the TLS
      // handshake proved, if any), or TLS ended by a trusted proxy in front (no certificate).
      const socket = handshake.request.socket as Socket & Partial<Pick<TLSSocket, 'encrypted' | 'getPeerX509Certificate'>>;
      const direct = socket.encrypted === true;
      const peerCert = direct ? socket.getPeerX509Certificate?.() : undefined;
      const tls = direct || forwardedTls(handshake.request);
      // A charger that authenticated before passes while its address is blocked (a site's other
      // chargers behind one address are not locked out by one misconfigured neighbour).
      const credential =
        typeof header === 'string' && header ? `ocpp ${target.orgId} ${header}` : peerCert ? `ocpp-cert ${target.orgId} ${peerCert.fingerprint256}` : undefined;
      try {
        await failedAuth.refuseIfBlocked(ip, credential);
      } catch (e) {
        if (!(e instanceof AppError) || e.status !== 429) throw e;
        refusals.inc({ reason: 'auth_throttled' });
        return reject(429, 'Too Many Requests');
      }
      const cp = await store.chargePoint(db, target.orgId, target.cpId);
      const given: Buffer | undefined = handshake.password;
      const actual = Buffer.from(hashPassword(given ?? Buffer.alloc(0)), 'hex');
      const same = (hash: string | null | undefined) => {
        const expected = Buffer.from(hash ?? NO_HASH, 'hex');
        return expected.length === actual.length && timingSafeEqual(expected, actual);
      };
      // The current password, or one sent to the charger and not yet confirmed (decision 0432);
      // both compared, so the time taken does not say which.
      const current = same(cp?.password_hash);
      const pending = same(cp?.pending_password_hash ?? NO_HASH) && cp?.pending_password_hash != null;
      const certificate =
        cp !== null &&
        peerCert !== undefined &&
        certificateNamesChargePoint(peerCert, await store.chargerCas(db, target.orgId), cp.charge_point_id, clock.now());
      const reached = profileReached({ tls, certificate, password: given !== undefined && (current || pending) });
      // One answer for an unknown organisation, an unknown charge point, a wrong password or
      // certificate, and a charger below the security profile it is registered at.
      if (!cp || reached < cp.security_profile) {
        refusals.inc({ reason: reached > 0 ? 'below_security_profile' : 'auth_failed' });
        await failedAuth.recordFailure(ip);
        return reject(401, 'Unauthorized');
      }
      if (credential) await failedAuth.recordSuccess(credential);
      // The charger connects with the new password: it has taken it, the old one ends here.
      if (pending && !current) await store.confirmPassword(db, target.orgId, cp.charge_point_id, cp.pending_password_hash!);
      // The charger's preference order (its Sec-WebSocket-Protocol list) among those served.
      const protocol = [...(handshake.protocols as Set<string>)].find((p) => (SUBPROTOCOLS as readonly string[]).includes(p));
      if (!protocol) {
        refusals.inc({ reason: 'bad_subprotocol' });
        return reject(400, 'No supported subprotocol (ocpp2.0.1, ocpp1.6)');
      }
      accept({ orgId: target.orgId, cpId: cp.charge_point_id, siteId: cp.site_id, assetId: cp.asset_id } satisfies ChargerSession, protocol);
    } catch (err) {
      entries.failed('hub.ocpp-handshake', err);
      reject(500, 'Internal Server Error');
    }
  });

  /** What a handler ran into, as the CALLERROR the charger gets: never the internal text (logged here). */
  function callFailure(s: ChargerSession, action: string, err: unknown): Error {
    if (isRpcError(err)) return err;
    const code = (err as { code?: unknown })?.code;
    if (typeof code === 'string' && code.startsWith('22')) {
      // A PostgreSQL data exception (class 22: out of range, bad date, bad text): a value the charger sent.
      refusals.inc({ reason: 'store_refused' });
      log.warn({ err, orgId: s.orgId, cp: s.cpId, action }, "hub: a charger's value could not be stored");
      return rpcError('PropertyConstraintViolation', 'A value is outside what the service accepts');
    }
    refusals.inc({ reason: 'internal_error' });
    log.error({ err, orgId: s.orgId, cp: s.cpId, action }, 'hub: OCPP call failed');
    return rpcError('InternalError', 'Internal error');
  }

  /**
   * Registers the version's handlers on the connection, each call through one guard: a handler's
   * failure goes through callFailure. OCPP-J has a charger wait for each answer before its next
   * CALL; one that does not gets at most MAX_CALLS_IN_FLIGHT handled at once, the rest a CALLERROR
   * (counted as bad messages). Text no store can hold is refused before the handler (storableText). No wildcard handler: an action not in the table is answered
   * NotImplemented by ocpp-rpc before any schema check (a wildcard would be validated first and
   * answer ProtocolError).
   */
  function dispatch(client: RpcClient, ctx: CallContext, tooMany: () => void) {
    let inFlight = 0;
    for (const [action, handler] of DISPATCH[ctx.version]) {
      client.handle(action, async ({ params }) => {
        if (inFlight >= MAX_CALLS_IN_FLIGHT) {
          tooMany();
          throw rpcError('GenericError', 'Too many calls in progress: wait for the answers');
        }
        inFlight++;
        try {
          storableText(params);
          return await handler(ctx, params);
        } catch (err) {
          throw callFailure(ctx.session, action, err);
        } finally {
          inFlight--;
        }
      });
    }
  }

  /** Closes a connection that sends more than the limit of bad messages in a minute (of the service clock); returns the count. */
  function limitBadMessages(client: RpcClient, s: ChargerSession): () => void {
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
      entries.wrap('hub.ocpp-bad-message', (e: { outbound?: boolean; isCall?: boolean; method?: string; error?: { details?: unknown } }) => {
        if (!e.outbound) return e.isCall && bad();
        // What the hub sends is checked too: a CALL or CALLRESULT of ours the schema refuses is not sent (a fault here).
        log.error(
          { orgId: s.orgId, cp: s.cpId, action: e.method, call: e.isCall, violation: schemaViolation(e.error?.details) },
          'hub: an OCPP message of the hub failed its schema, not sent',
        );
      }),
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
    // Every CALLERROR leaves through this (ocpp-rpc writes its answers and CALLs with sendRaw), and
    // nothing more is kept for a charger that does not read than MAX_UNREAD_BYTES.
    const version = client.protocol as OcppVersion;
    const sendRaw = client.sendRaw.bind(client);
    const socket = client.handshake.request.socket;
    let unread = false;
    client.sendRaw = (message: string) => {
      sendRaw(message.startsWith('[4,') ? plainCallError(message, version) : message);
      if (unread || socket.writableLength <= MAX_UNREAD_BYTES) return;
      unread = true;
      refusals.inc({ reason: 'unread_answers' });
      log.warn({ orgId: s.orgId, cp: s.cpId }, 'hub: the charger does not read what it is sent, connection closed');
      // Forced: a close frame would wait behind what the charger does not read.
      entries.settle('hub.ocpp-close', client.close({ code: 1008, force: true }));
    };
    dispatch(client, { ...services, session: s, version }, limitBadMessages(client, s));
    const k = key(s.orgId, s.cpId);
    const previous = clients.get(k);
    clients.set(k, client);
    if (previous && previous !== client) entries.settle('hub.ocpp-close', previous.close({ code: 1000, reason: 'Replaced by a new connection' }));
    const connectedAt = clock.now();
    entries.settle('hub.ocpp-connected', track(inOrder(k, () => store.connected(db, s.orgId, s.cpId, instanceId, connectedAt, version))));
    client.on(
      'close',
      entries.wrap('hub.ocpp-close', () => {
        if (clients.get(k) !== client) return; // replaced: the new connection holds it
        clients.delete(k);
        // After the connection's own write (a charger that left at once would otherwise stay shown
        // connected), and before a later connection's (whose flag it would otherwise clear).
        entries.settle('hub.ocpp-offline', track(inOrder(k, () => offline(s))));
      }),
    );
  }

  /**
   * The TLS listener for chargers (decision 0430): the same upgrade handling as the plain one, on
   * its own port; it asks every client for a certificate and lets the handshake go on without one
   * (profile 2 chargers have none): the certificate is judged at the WebSocket handshake, against
   * the organisation's charger CAs. Anything but an OCPP upgrade is answered 404.
   */
  async function startTls(tls: HubTlsConfig, upgradesOf: (srv: HttpsServer) => (req: IncomingMessage, socket: Socket, head: Buffer) => void) {
    const s = createHttpsServer({ cert: tls.cert, key: tls.key, requestCert: true, rejectUnauthorized: false, minVersion: 'TLSv1.2' });
    s.on('request', (_req, res) => {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8', connection: 'close' }).end('Not Found: chargers connect here with a WebSocket upgrade');
    });
    s.on(
      'upgrade',
      entries.wrap('hub.upgrade', upgradesOf(s), (_err, _req, socket: Socket) => refuseUpgrade(socket, 500)),
    );
    s.on('error', (err) => entries.failed('hub.ocpp-tls-server', err));
    await new Promise<void>((resolve, reject) => {
      s.once('error', reject);
      s.listen(tls.port, deps.host ?? '0.0.0.0', () => {
        s.off('error', reject);
        resolve();
      });
    });
    tlsServer = s;
  }

  /**
   * The connection ended: each connector it reported goes UNKNOWN (excluded from reliability), in
   * one statement: the charger chooses how many connector ids it reports, and one write each went
   * on after it had reconnected, over the statuses it reported on its new connection.
   */
  async function offline(s: ChargerSession) {
    const k = key(s.orgId, s.cpId);
    if (clients.has(k)) return; // it reconnected here already
    const still = await store.disconnected(db, s.orgId, s.cpId, instanceId);
    if (!still || clients.has(k)) return;
    await store.connectorsOffline(db, s.orgId, s.cpId, clock.now());
  }

  return {
    /** What the hub does once a charger's boot is accepted (decision 0489). */
    onBoot(fn: (s: ChargerSession, version: OcppVersion) => Promise<void>) {
      onBooted = fn;
    },

    instanceId,
    /** Chargers connected to this instance. */
    connections: () => clients.size,
    /** Whether this instance holds the charger's connection. */
    holds: (orgId: string, cpId: string) => clients.has(key(orgId, cpId)),

    /**
     * The origin chargers reach this instance at, if it listens: its TLS listener's as a wss:// URL
     * when there is one (decision 0430), else its HTTP server's as ws://.
     */
    listeningUrl(): string | null {
      const a = (tlsServer ?? listening)?.address();
      if (!a || typeof a === 'string') return null;
      const host = a.address === '0.0.0.0' || a.address === '::' ? 'localhost' : a.family === 'IPv6' ? `[${a.address}]` : a.address;
      return `${tlsServer ? 'wss' : 'ws'}://${host}:${a.port}`;
    },

    async start(server: Server | undefined) {
      listening = server;
      const upgradesOf = (srv: Server | HttpsServer) => (req: IncomingMessage, socket: Socket, head: Buffer) => {
        // Node takes its own error listener off an upgraded socket: a reset before ocpp-rpc or ws
        // adds theirs would otherwise be an 'error' nobody handles.
        socket.on('error', () => {});
        const target = ocppTarget(req.url);
        if (target === null) {
          // Node ends upgrades nobody listens for; with this listener it would not, so when no other
          // module serves WebSockets an upgrade to any other path is ended here.
          if (srv.listenerCount('upgrade') === 1) socket.destroy();
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
      if (server)
        server.on(
          'upgrade',
          entries.wrap('hub.upgrade', upgradesOf(server), (_err, _req, socket: Socket) => refuseUpgrade(socket, 500)),
        );
      if (deps.tls) await startTls(deps.tls, upgradesOf);
      await commands.listen();
    },

    /**
     * Sends a CALL to a charger wherever it is connected: directly when this instance holds it,
     * else over the bus to the instance that does (its answer comes back the same way).
     */
    command: (orgId: string, cp: ChargePointRow, call: OcppCall): Promise<CommandOutcome> =>
      commands.command(orgId, cp.charge_point_id, call.action, call.params),

    /** Closes every charger connection (they reconnect to another instance), and the TLS listener. */
    async closing() {
      await rpc.close({ code: 1001, reason: 'Service stopping', force: true }).catch(() => {});
      if (tlsServer) {
        const s = tlsServer;
        await new Promise<void>((resolve) => {
          s.close(() => resolve());
          s.closeAllConnections();
        });
      }
    },

    async stop() {
      await commands.stop();
      await Promise.allSettled([...pending]);
    },
  };
}

export type OcppGateway = ReturnType<typeof createOcppGateway>;
