// The device MQTT consumer (issue 40, item 2; decisions 0377, 0440): takes a share of the devices'
// telemetry, heartbeat and replay topics and takes each message through the HTTP operation's own
// path (telemetry ingestion; the gateway heartbeat; buffer replay), in the site's organisation
// scope, acknowledging a QoS 1 message to the broker only after its work committed; each
// message's outcome goes to its results topic.
//
// Throughput (decision 0480): up to `inFlight` messages of a connection are worked on at once (the
// broker sends no more: the connection's Receive Maximum), telemetry messages of one organisation
// that arrived together are ingested in one call and one transaction, each judged as its own
// HTTP request would be, and PUBACKs go in the order the messages came, each after its commit.
//
// Who published: MQTT does not say, so the topic does (the broker's ACL lets a site-wide
// credential publish only to its site's topic, and one with a device list only to its devices'
// topics). Bounded: the payload's size, the records per message and each publisher's rate.
import type { FastifyBaseLogger } from 'fastify';
import mqtt, { type IPublishPacket, type MqttClient } from 'mqtt';
import { runInOrgScope } from '../../infra/db/scope.ts';
import { AppError } from '../../platform/errors.ts';
import type { EntryGuard } from '../../platform/entry-guard.ts';
import { parseJsonBytes } from '../../platform/json-body.ts';
import type { DeviceRefusal, RequestContext } from '../../platform/operation.ts';
import type { LimitResult, RateLimiter } from '../../platform/rate-limit.ts';
import type { TelemetryIngest } from '../telemetry/index.ts';
import type { GatewayEntry } from '../connect/index.ts';
import { consumed, topicLevelOk, topics } from './broker.ts';

/** Codes the consumer answers with on a results topic that HTTP does not give (the error page lists them). */
export const MQTT_ERROR_DOCS = [
  {
    code: 'malformed_payload',
    status: 400,
    description:
      'Device MQTT answer: the message is not UTF-8, not JSON (or nested deeper than 64 levels, or with a __proto__ or constructor.prototype key), or not one record (an object) or an array of them.',
  },
  { code: 'too_many_records', status: 413, description: 'Device MQTT answer: more records in one message than MQTT_MAX_RECORDS.' },
  {
    code: 'not_storable',
    status: 422,
    description:
      'Device MQTT answer: the store refused this message three times while it stored others; it is dropped and the cause is in the operator log (decision 0482).',
  },
] as const;

export type ConsumerState = 'connecting' | 'connected' | 'disconnected';

export interface ConsumerDeps {
  url: string;
  /** MQTT_TOPIC_ROOT: the first level of every topic consumed and answered. */
  root: string;
  username: string;
  password: string;
  clientId: string;
  maxPayloadBytes: number;
  maxRecords: number;
  perMinute: number;
  /** MQTT_CONSUMER_IN_FLIGHT: messages of this connection worked on at once (its Receive Maximum). */
  inFlight: number;
  /**
   * MQTT_TRANSACTIONS_PER_ORG: transactions of one organisation's telemetry at once (decisions 0480,
   * 0498): a message that arrives while fewer are running starts one at once; past that, messages
   * wait and go together in the next.
   */
  transactionsPerOrg: number;
  ingest: TelemetryIngest;
  /** Heartbeat and buffer replay as their HTTP operations take them. */
  gateway: GatewayEntry;
  /** The credential rules for several sites of an organisation at once: by site, the asset ids written for it that are registered to another. */
  sitesRefusals(orgId: string, asks: ReadonlyMap<string, readonly string[]>): Promise<Map<string, Map<string, DeviceRefusal>>>;
  limiter: RateLimiter;
  entries: EntryGuard;
  log: FastifyBaseLogger;
  /** A device topic's message handled: seconds from its arrival at this consumer to its answer (after the commit). */
  handled?: (kind: TopicKind, seconds: number) => void;
}

export type TopicKind = 'telemetry' | 'heartbeat' | 'replay';
/** The scope each kind of topic stands for (the broker grants a credential's topics by its scopes). */
const SCOPE: Record<TopicKind, string> = { telemetry: 'telemetry:write', heartbeat: 'gateway:heartbeat', replay: 'buffer:replay' };

/** A device topic's parts (parseTopic). */
export interface Topic {
  orgId: string;
  siteId: string;
  device: string | null;
  kind: TopicKind;
}

/**
 * A parsed device topic under `root`: {root}/{org}/{site}/telemetry, /heartbeat, /replay, or
 * {root}/{org}/{site}/devices/{device}/telemetry.
 */
export function parseTopic(root: string, topic: string): Topic | null {
  const l = topic.split('/');
  if (l[0] !== root || !topicLevelOk(l[1] ?? '') || !topicLevelOk(l[2] ?? '')) return null;
  if (l.length === 4 && (l[3] === 'telemetry' || l[3] === 'heartbeat' || l[3] === 'replay')) return { orgId: l[1], siteId: l[2], device: null, kind: l[3] };
  if (l.length === 6 && l[3] === 'devices' && topicLevelOk(l[4]) && l[5] === 'telemetry') return { orgId: l[1], siteId: l[2], device: l[4], kind: 'telemetry' };
  return null;
}

/** What the consumer did with a message: answer it (and acknowledge), or leave it unacknowledged for redelivery. */
type Handled = { ack: true; answer: Record<string, unknown> } | { ack: false; reason: string };

/** A telemetry message waiting for its organisation's next transaction. */
/** How often a message fails while others are stored before it is answered as not storable, and how many failing messages are remembered. */
const POISON_ATTEMPTS = 3;
const POISON_TRACKED = 10_000;

interface Part {
  ctx: RequestContext;
  body: unknown;
  records: number;
  topic: string;
  resolve: (h: Handled) => void;
}

/** A QoS 1 message taken from a connection, with the connection (its stream) it came on. */
interface Received {
  packet: IPublishPacket;
  topic: string;
  stream: MqttClient['stream'];
  handled: Handled | undefined;
}

/**
 * mqtt.js's handleMessage callback sends the PUBACK unless given an error, and reads the next
 * packet either way: this error tells it the PUBACK is sent later, by the consumer.
 */
const HELD = new Error('PUBACK sent after the commit');

/** mqtt.js's packet writer (not in its typed API): the PUBACK of a message whose work committed. */
interface PubackSender {
  _sendPacket(packet: { cmd: 'puback'; messageId: number; reasonCode: number }, cb?: (err?: Error) => void): void;
}
const sendPuback = (c: MqttClient, messageId: number) => (c as unknown as PubackSender)._sendPacket({ cmd: 'puback', messageId, reasonCode: 0 }, () => {});

const MINUTE = 60_000;
/**
 * A persistent session outlives a restart by this much (seconds): an instance killed comes back with
 * its unacknowledged messages under the same MQTT_CLIENT_ID. Its share of new messages is queued to
 * it meanwhile (Mosquitto counts offline members of a group), so this is not longer than a day.
 */
const SESSION_EXPIRY_S = 86_400;
/** After a message that could not be stored, the connection is dropped and made again after this, so the broker sends it again. */
const RETRY_MS = 2_000;

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const refused = (status: number, code: string, message: string, extra: Record<string, unknown> = {}) => ({ status, code, message, ...extra });
/** An error as a refusal: its field errors (a 422 validation_error's list) travel as `detail`, as HTTP sends them. */
const refusedBy = (err: AppError) =>
  refused(err.status, err.code, err.message, { ...(typeof err.detail !== 'string' && err.detail !== undefined && { detail: err.detail }), ...err.members });

/** Why a consumer connection ended (the label of device_mqtt_consumer_disconnects). */
export type DisconnectReason =
  | 'session_taken_over'
  | 'administrative_action'
  | 'keepalive_timeout'
  | 'server_shutting_down'
  | 'protocol_error'
  | 'broker_other'
  | 'message_not_stored'
  | 'connection_error'
  | 'connection_lost';

/** An MQTT 5 DISCONNECT reason code from the broker as a reason. */
function brokerReason(code: number): DisconnectReason {
  if (code === 0x8e) return 'session_taken_over';
  if (code === 0x98) return 'administrative_action';
  if (code === 0x8d) return 'keepalive_timeout';
  if (code === 0x8b) return 'server_shutting_down';
  if (code === 0x81 || code === 0x82) return 'protocol_error';
  return 'broker_other';
}

export function createConsumer(deps: ConsumerDeps) {
  const { log } = deps;
  let client: MqttClient | undefined;
  let state: ConsumerState = 'disconnected';
  let stopping = false;
  const counts = { messages: 0, stored: 0, refused: 0, unacknowledged: 0, transactions: 0, poisoned: 0 };
  /** Connections that ended other than by stop(), by why (decision 0497); each is followed by a reconnect. */
  const disconnects = new Map<DisconnectReason, number>();
  /** Why the current connection is ending: the broker's DISCONNECT, an error, or the consumer's own drop. */
  let ending: { reason: DisconnectReason; code?: number; detail?: string } | undefined;

  /**
   * The publishers' limit checks of one turn of the event loop, asked together (checkMany): one
   * write to Redis for the messages of a turn instead of one a message (each woke Redis on the same
   * two cores as the service; bench:mqtt, 29 November 2026). Asked on the next turn, in order.
   */
  type Check = { publisher: string; resolve: (r: LimitResult) => void; reject: (e: unknown) => void };
  let checks: Check[] | undefined;
  function publisherLimit(publisher: string): Promise<LimitResult> {
    return new Promise((resolve, reject) => {
      if (!checks) {
        const batch: Check[] = [];
        checks = batch;
        setImmediate(() => {
          checks = undefined;
          deps.limiter
            .checkMany(
              { name: 'mqtt-publisher', limit: deps.perMinute, windowMs: MINUTE },
              batch.map((c) => c.publisher),
            )
            .then(
              (results) => batch.forEach((c, i) => c.resolve(results[i]!)),
              (err) => batch.forEach((c) => c.reject(err)),
            );
        });
      }
      checks.push({ publisher, resolve, reject });
    });
  }

  async function handle(topic: string, where: Topic | null, payload: Buffer): Promise<Handled> {
    // Only the subscribed topics arrive; anything else is answered nowhere but acknowledged.
    if (!where) return { ack: true, answer: refused(400, 'unknown_topic', `Not a device topic: ${topic}`) };
    // Every message counts against its publisher's rate, those refused below too: a flood of
    // oversized or malformed messages is dropped past the rate as any other.
    const publisher = `${where.orgId}/${where.siteId}/${where.device ?? ''}`;
    const limit = await publisherLimit(publisher);
    if (!limit.allowed) {
      return {
        ack: true,
        answer: refused(429, 'rate_limited', `More than ${deps.perMinute} messages a minute from this topic: dropped`, { reset_seconds: limit.resetSeconds }),
      };
    }
    if (payload.length > deps.maxPayloadBytes) {
      return { ack: true, answer: refused(413, 'payload_too_large', `The payload is ${payload.length} bytes; at most ${deps.maxPayloadBytes}`) };
    }
    // As HTTP's body parser takes a body (platform/json-body.ts): bytes that are not UTF-8 are
    // refused, never stored as U+FFFD, and so are nesting deep enough to exhaust the stack writing
    // the answer and prototype-poisoning keys. A heartbeat may be empty (`mosquitto_pub -n`), as its
    // HTTP body may be absent.
    const parsed = where.kind === 'heartbeat' && payload.length === 0 ? { ok: true as const, value: {} } : parseJsonBytes(payload);
    if (!parsed.ok) return { ack: true, answer: refused(400, 'malformed_payload', `The payload is ${parsed.reason}`) };
    const body: unknown = parsed.value;
    if (where.kind !== 'telemetry') {
      if (!isRecord(body)) return { ack: true, answer: refused(400, 'malformed_payload', `The ${where.kind} payload must be a JSON object`) };
      if (where.kind === 'replay' && Array.isArray(body.records) && body.records.length > deps.maxRecords) {
        return { ack: true, answer: refused(413, 'too_many_records', `${body.records.length} records; at most ${deps.maxRecords} in one message`) };
      }
      return run(where.orgId, topic, () => {
        const ctx = deviceContext(where.orgId, where.siteId, null, publisher, SCOPE[where.kind]);
        return where.kind === 'heartbeat' ? deps.gateway.heartbeat(ctx, where.siteId, body) : deps.gateway.replay(ctx, where.siteId, body);
      });
    }
    if (!isRecord(body) && !Array.isArray(body)) {
      return { ack: true, answer: refused(400, 'malformed_payload', 'The payload must be one record (a JSON object) or an array of them') };
    }
    const records: unknown[] = Array.isArray(body) ? body : [body];
    if (records.length > deps.maxRecords) {
      return { ack: true, answer: refused(413, 'too_many_records', `${records.length} records; at most ${deps.maxRecords} in one message`) };
    }
    // A device's topic names its device: a record without one is that device's.
    if (where.device !== null) {
      for (const r of records)
        if (isRecord(r) && (r.asset_id === undefined || r.asset_id === null) && (r.device_id === undefined || r.device_id === null)) r.device_id = where.device;
    }
    const ctx = deviceContext(where.orgId, where.siteId, where.device, publisher, SCOPE.telemetry);
    return new Promise<Handled>((resolve) => together(where.orgId, { ctx, body, records: records.length, topic, resolve }));
  }

  /**
   * Telemetry messages of one organisation waiting for its next transaction (decision 0480): those
   * that arrive while `transactionsPerOrg` are being written go together in the next, up to
   * `maxRecords` records.
   */
  const batches = new Map<string, { waiting: Part[]; running: number; scheduled: boolean }>();

  function together(orgId: string, part: Part) {
    let b = batches.get(orgId);
    if (!b) batches.set(orgId, (b = { waiting: [], running: 0, scheduled: false }));
    b.waiting.push(part);
    schedule(orgId, b);
  }

  /** After the packets already read are handed over (mqtt.js takes them on process.nextTick), if a transaction may start. */
  function schedule(orgId: string, b: { waiting: Part[]; running: number; scheduled: boolean }) {
    if (b.scheduled || b.running >= deps.transactionsPerOrg || !b.waiting.length) return;
    b.scheduled = true;
    setImmediate(() => {
      b.scheduled = false;
      // Everything waiting (up to maxRecords records) goes in this one.
      let n = 0;
      let records = 0;
      while (n < b.waiting.length && (n === 0 || records + b.waiting[n].records <= deps.maxRecords)) records += b.waiting[n++].records;
      const parts = b.waiting.splice(0, n);
      b.running++;
      deps.entries.settle(
        'mqtt.ingest',
        ingestTogether(orgId, parts).finally(() => {
          b.running--;
          if (!b.running && !b.waiting.length) batches.delete(orgId);
          else schedule(orgId, b);
        }),
      );
      schedule(orgId, b);
    });
  }

  /** One call, one transaction; each message answered by its own outcome. */
  async function ingestTogether(orgId: string, parts: Part[]) {
    counts.transactions++;
    let settled: PromiseSettledResult<{ httpStatus: number }>[];
    try {
      settled = await runInOrgScope(orgId, () => deps.ingest.ingestMany(parts.map((p) => ({ ctx: p.ctx, body: p.body }))));
    } catch (err) {
      settled = parts.map(() => ({ status: 'rejected', reason: err }));
    }
    settled.forEach((s, i) => {
      const part = parts[i];
      if (s.status === 'fulfilled') {
        const { httpStatus, ...outcome } = s.value;
        part.resolve({ ack: true, answer: { status: httpStatus, ...outcome } });
      } else part.resolve(failed(s.reason, part.topic));
    });
  }

  /**
   * The actor a message acts as: a device of the topic's site with the scope the topic stands for
   * (the broker let only a credential holding it publish there), refused the records of devices on
   * another site and, on a device's topic, of any other device.
   */
  function deviceContext(orgId: string, siteId: string, device: string | null, publisher: string, scope: string): RequestContext {
    return {
      orgId,
      requestId: `mqtt-${publisher}`,
      ip: '',
      actor: {
        kind: 'device',
        credentialId: `mqtt:${publisher}`,
        siteId,
        deviceIds: device === null ? null : [device],
        scopes: [scope],
        refusals: async (assetIds) => {
          const out = new Map<string, DeviceRefusal>();
          const rest: string[] = [];
          for (const id of assetIds) {
            if (device !== null && id !== device) out.set(id, { reason: 'device_not_in_topic', message: `${id} is not this topic's device (${device})` });
            else rest.push(id);
          }
          for (const [id, r] of await siteRefusals(orgId, siteId, rest)) out.set(id, r);
          return out;
        },
      },
    };
  }

  /**
   * The credential rules' answer for a site's asset ids. The messages of one transaction ask in the
   * same turn of the event loop (ingestMany judges them together): their questions about all of an
   * organisation's sites are put to the registry as one (decision 0498), and each gets the answer
   * for its own site and ids.
   */
  const asking = new Map<string, { sites: Map<string, Set<string>>; answer: Promise<Map<string, Map<string, DeviceRefusal>>> }>();
  function siteRefusals(orgId: string, siteId: string, ids: readonly string[]): Promise<Map<string, DeviceRefusal>> {
    if (!ids.length) return Promise.resolve(new Map());
    let q = asking.get(orgId);
    if (!q) {
      const sites = new Map<string, Set<string>>();
      const answer = new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
        asking.delete(orgId);
        return deps.sitesRefusals(orgId, new Map([...sites].map(([site, set]) => [site, [...set]])));
      });
      asking.set(orgId, (q = { sites, answer }));
    }
    let pending = q.sites.get(siteId);
    if (!pending) q.sites.set(siteId, (pending = new Set()));
    for (const id of ids) pending.add(id);
    return q.answer.then((all) => {
      const site = all.get(siteId);
      return new Map(ids.flatMap((id) => (site?.has(id) ? [[id, site.get(id)!] as const] : [])));
    });
  }

  /** Runs the operation in the organisation's scope: its answer, or a refusal, or (store failure) no acknowledgement. */
  async function run(orgId: string, topic: string, work: () => Promise<{ httpStatus: number; body: Record<string, unknown> }>): Promise<Handled> {
    try {
      const { httpStatus, body } = await runInOrgScope(orgId, work);
      return { ack: true, answer: { status: httpStatus, ...body } };
    } catch (err) {
      return failed(err, topic);
    }
  }

  /** A refusal is answered; the store not taking it (writer_error) or something unforeseen is not acknowledged, so the broker sends it again. */
  function failed(err: unknown, topic: string): Handled {
    if (err instanceof AppError && err.status < 500) return { ack: true, answer: refusedBy(err) };
    if (!(err instanceof AppError)) deps.entries.failed('mqtt.message', err, { topic });
    return { ack: false, reason: err instanceof Error ? err.message : String(err) };
  }

  function answer(c: MqttClient, topic: string, where: Topic | null, packet: IPublishPacket, body: Record<string, unknown>) {
    if (!where) return;
    const t = topics(deps.root, where.orgId, where.siteId);
    const to = where.device === null ? t.siteResults : t.results(where.device);
    const correlationData = packet.properties?.correlationData;
    // Not awaited: the broker's PUBACK of the answer is read by the same connection's packet loop.
    c.publish(to, JSON.stringify({ topic, ...body }), { qos: 1, ...(correlationData && { properties: { correlationData } }) }, (err) => {
      if (err) log.warn({ err, topic: to }, 'device MQTT: result not published');
    });
  }

  /**
   * The messages of this connection in the order they came, worked on at once up to `inFlight`
   * (decision 0480). mqtt.js sends a PUBACK when handleMessage calls back without an error and
   * takes the next packet either way; so each message is let go at once with HELD (no PUBACK, the
   * next packet read), and its PUBACK is sent by `flush` once it and every message before it are
   * done. A message received on a connection since closed is not acknowledged: the session sends
   * it again on the next. A QoS 0 message (mosquitto_pub's default) has nothing to acknowledge but
   * shares the window: the next packet is read at once while fewer than `inFlight` are being worked
   * on, else when one of them is done. The broker does not bound QoS 0 by Receive Maximum, so the
   * held callback is what bounds them (the socket is not read meanwhile); before, each QoS 0 message
   * held the connection until it was stored, so one organisation's slow transaction held up every
   * other organisation's next message.
   */
  const order: Received[] = [];
  let working = 0;
  /** handleMessage callbacks held while `inFlight` messages are being worked on (the broker should not send more: Receive Maximum). */
  const held: (() => void)[] = [];

  function onMessage(c: MqttClient, packet: IPublishPacket, done: (err?: Error) => void) {
    const topic = packet.topic;
    const payload = Buffer.isBuffer(packet.payload) ? packet.payload : Buffer.from(packet.payload);
    counts.messages++;
    const arrived = performance.now();
    const r: Received = { packet, topic, stream: c.stream, handled: undefined };
    if (packet.qos > 0) order.push(r);
    working++;
    // The topic is read once: its site and device for the work and the answer, its kind for the metric.
    const where = parseTopic(deps.root, topic);
    handle(topic, where, payload)
      .catch((err: unknown): Handled => {
        deps.entries.failed('mqtt.message', err, { topic });
        return { ack: false, reason: err instanceof Error ? err.message : String(err) };
      })
      .then((h0) => {
        const h = poisonCheck(packet, h0);
        r.handled = h;
        // The answer goes as soon as the work is done; the PUBACK waits for the messages before it.
        if (h.ack) {
          // An answer that cannot be written must not keep the message from its PUBACK (or, at QoS 0, the connection's next packet).
          try {
            answer(c, topic, where, packet, h.answer);
          } catch (err) {
            deps.entries.failed('mqtt.answer', err, { topic });
          }
          if (where) deps.handled?.(where.kind, (performance.now() - arrived) / 1000);
        }
        if (packet.qos === 0) {
          // Nothing to acknowledge (a QoS 0 publish): it was counted and answered. One that could
          // not be stored is not sent again by the broker: the device is told to send it again, as
          // HTTP answers 503 writer_error.
          if (!h.ack) {
            try {
              answer(
                c,
                topic,
                where,
                packet,
                refused(503, 'writer_error', 'The store did not persist this message and, at QoS 0, the broker will not send it again: send it again'),
              );
            } catch (err) {
              deps.entries.failed('mqtt.answer', err, { topic });
            }
          }
          working--;
          held.shift()?.();
          tally(h);
          return;
        }
        flush(c);
      });
    const letGo = packet.qos === 0 ? () => done() : () => done(HELD);
    if (working <= deps.inFlight) letGo();
    else held.push(letGo);
  }

  /**
   * A message the store keeps failing while it stores others is the message's own fault (a value
   * no check foresaw): after POISON_ATTEMPTS it is acknowledged with its refusal, so the broker
   * stops sending it again and again ahead of other organisations' messages on this connection. A
   * store that fails everything (an outage) stores nothing else meanwhile: its messages stay
   * unacknowledged, for as long as it lasts, and none is lost. Keyed by topic, packet id (kept on
   * redelivery) and size; at most POISON_TRACKED remembered.
   */
  function poisonCheck(packet: IPublishPacket, h: Handled): Handled {
    if (packet.qos === 0) return h;
    const key = `${packet.topic}\u0000${packet.messageId}\u0000${Buffer.byteLength(packet.payload as Buffer)}`;
    if (h.ack) {
      failures.delete(key);
      const status = Number(h.answer.status);
      if (status === 200 || status === 207) storedSince++;
      return h;
    }
    const seen = failures.get(key);
    if (!seen) {
      if (failures.size >= POISON_TRACKED) failures.clear();
      failures.set(key, { attempts: 1, storedAtFirst: storedSince });
      return h;
    }
    seen.attempts++;
    if (seen.attempts < POISON_ATTEMPTS || storedSince === seen.storedAtFirst) return h;
    failures.delete(key);
    counts.poisoned++;
    log.error(
      { topic: packet.topic, attempts: seen.attempts, reason: h.reason },
      'device MQTT: a message the store keeps refusing while it stores others is answered and acknowledged',
    );
    return {
      ack: true,
      answer: {
        status: 422,
        code: 'not_storable',
        detail: `The service could not store this message in ${seen.attempts} attempts while it stored others: it is dropped (the operator's log has the cause)`,
      },
    };
  }
  const failures = new Map<string, { attempts: number; storedAtFirst: number }>();
  let storedSince = 0;

  function tally(h: Handled) {
    if (h.ack) {
      const status = Number(h.answer.status);
      if (status === 200 || status === 207) counts.stored++;
      else counts.refused++;
    } else counts.unacknowledged++;
  }

  /** PUBACKs, in the order the messages came, for those done at the head of the line. */
  function flush(c: MqttClient) {
    while (order.length && order[0].handled) {
      const r = order.shift()!;
      const h = r.handled!;
      working--;
      held.shift()?.();
      tally(h);
      const current = r.stream === c.stream && c.connected;
      if (h.ack) {
        if (current) sendPuback(c, r.packet.messageId!);
        continue;
      }
      log.warn({ topic: r.topic, reason: h.reason }, 'device MQTT: message not stored; left unacknowledged for the broker to send again');
      // The broker sends unacknowledged messages again when the session reconnects; the messages
      // after this one on this connection are not acknowledged either (PUBACKs go in order).
      if (current) {
        ending = { reason: 'message_not_stored', detail: h.reason };
        c.stream.destroy();
      }
    }
  }

  return {
    state: () => state,
    counts: () => ({ ...counts }),
    disconnects: () => new Map(disconnects),

    async start() {
      stopping = false;
      state = 'connecting';
      const c = mqtt.connect(deps.url, {
        username: deps.username,
        password: deps.password,
        clientId: deps.clientId,
        protocolVersion: 5,
        clean: false,
        // The broker sends at most `inFlight` messages not yet acknowledged (MQTT 5 Receive Maximum).
        properties: { sessionExpiryInterval: SESSION_EXPIRY_S, receiveMaximum: deps.inFlight },
        reconnectPeriod: RETRY_MS,
      });
      client = c;
      if (typeof (c as unknown as Partial<PubackSender>)._sendPacket !== 'function')
        throw new Error('device MQTT: this mqtt.js cannot send a PUBACK after the fact');
      // PUBACKs are sent by `flush`, each after its message's work committed.
      c.handleMessage = (packet, done) => onMessage(c, packet, done);
      c.on(
        'connect',
        deps.entries.wrap('mqtt.connect', async (ack: { sessionPresent?: boolean }) => {
          state = 'connected';
          log.info({ clientId: deps.clientId, sessionPresent: ack.sessionPresent }, 'device MQTT: consumer connected');
          // Every time, session or not: a session made by an earlier version may lack a topic
          // (heartbeat and replay came later); subscribing again keeps what the session queued.
          const granted = await c.subscribeAsync(consumed(deps.root), { qos: 1 });
          const refusedSubs = granted.filter((g) => g.qos > 2);
          if (refusedSubs.length) log.error({ refused: refusedSubs }, 'device MQTT: the broker refused the consumer a subscription');
        }),
      );
      // The broker's DISCONNECT (MQTT 5) says why it is closing the connection: kept for the close.
      c.on('disconnect', (packet: { reasonCode?: number; properties?: { reasonString?: string } }) => {
        ending = { reason: brokerReason(packet.reasonCode ?? 0), code: packet.reasonCode, detail: packet.properties?.reasonString };
      });
      c.on(
        'close',
        deps.entries.wrap('mqtt.close', () => {
          const was = state;
          const why = ending ?? { reason: 'connection_lost' as const };
          ending = undefined;
          state = stopping ? 'disconnected' : 'connecting';
          if (was !== 'connected' || stopping) return;
          disconnects.set(why.reason, (disconnects.get(why.reason) ?? 0) + 1);
          const fields = { clientId: deps.clientId, reason: why.reason, reasonCode: why.code, detail: why.detail };
          // Another connection took this client id's session: two consumers share one id, and each takes it back from the other.
          if (why.reason === 'session_taken_over')
            log.error(
              fields,
              'device MQTT: consumer disconnected: another connection signed in with its client id (each instance needs its own MQTT_CLIENT_ID; connection N of an instance uses MQTT_CLIENT_ID-N); reconnecting',
            );
          else log.warn(fields, 'device MQTT: consumer disconnected; reconnecting');
        }),
      );
      c.on(
        'error',
        deps.entries.wrap('mqtt.error', (err: Error & { code?: string | number }) => {
          // mqtt.js's own end of a connection (a keepalive with no answer, a packet it cannot read) comes as an error before the close.
          if (!ending && state === 'connected')
            ending = {
              reason: /keepalive/i.test(err.message) ? 'keepalive_timeout' : 'connection_error',
              code: typeof err.code === 'number' ? err.code : undefined,
              detail: err.message,
            };
          log.warn({ err, clientId: deps.clientId }, 'device MQTT: consumer connection error');
        }),
      );
    },

    async stop() {
      stopping = true;
      // A clean stop leaves the group: unsubscribed, and the session ends with the connection.
      if (client?.connected) {
        await client.unsubscribeAsync(consumed(deps.root)).catch((err: unknown) => log.warn({ err }, 'device MQTT: unsubscribe at stop failed'));
        await client.endAsync(false, { properties: { sessionExpiryInterval: 0 } });
      } else await client?.endAsync(true);
      client = undefined;
      state = 'disconnected';
    },
  };
}

export type Consumer = ReturnType<typeof createConsumer>;
