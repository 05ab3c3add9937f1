// Commands to chargers (CALLs from the hub): sent over the connection when this instance holds the
// charger, else over the bus to the instance that does (hub.cmd.<instance>, answered on
// hub.reply.<instance>). A bus that is down at start does not stop the service (readiness says
// degraded): this instance keeps its own chargers and tries again every few seconds; only routing
// through it waits for the bus.
import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import ocppRpc from 'ocpp-rpc';
import type { Bus } from '../../../infra/bus/index.ts';
import type { Db } from '../../../infra/db/index.ts';
import type { EntryGuard } from '../../../platform/entry-guard.ts';
import { hubStore as store } from '../store.ts';
import type { OcppSettings } from './context.ts';
import { schemaViolation, UNSTORABLE_TEXT } from './edge.ts';
import { findIllFormedText } from '../../../kit/text.ts';
import type { Actions as Actions16 } from './generated/v16.ts';
import type { Actions as Actions201 } from './generated/v201.ts';

/**
 * A CALL the hub sends, typed by the version's generated schema types: the action and its request.
 * (ocpp-rpc checks it against the same schema before it leaves, strict mode.)
 */
export type OcppCall =
  | { [K in keyof Actions16]: { version: 'ocpp1.6'; action: K; params: Actions16[K]['request'] } }[keyof Actions16]
  | { [K in keyof Actions201]: { version: 'ocpp2.0.1'; action: K; params: Actions201[K]['request'] } }[keyof Actions201];

export interface CommandOutcome {
  /** local: sent from this instance; routed: sent by the instance holding the charger; not_connected; timeout; error. */
  delivery: 'local' | 'routed' | 'not_connected' | 'timeout' | 'error';
  result: Record<string, unknown> | null;
  error: string | null;
}

/** What commands need of a connection (ocpp-rpc's client). */
export interface CallTarget {
  /** A CALLRESULT's payload: a JSON object, checked against the action's schema. */
  call(method: string, params: unknown, opts?: { callTimeoutMs?: number }): Promise<Record<string, unknown>>;
}

export function createCommandRouter(deps: {
  db: Db;
  bus: Bus;
  log: FastifyBaseLogger;
  entries: EntryGuard;
  settings: OcppSettings;
  instanceId: string;
  /** The connection this instance holds for a charger, if any. */
  connection: (orgId: string, cpId: string) => CallTarget | undefined;
}) {
  const { db, bus, log, entries, settings, instanceId } = deps;
  const replies = new Map<string, (o: CommandOutcome) => void>();
  const unsubs: (() => Promise<void>)[] = [];
  let stopped = false;
  let retry: NodeJS.Timeout | undefined;

  /** Sends a CALL to a charger held here; null when it is not held here. */
  async function callLocal(orgId: string, cpId: string, action: string, params: unknown): Promise<CommandOutcome | null> {
    const c = deps.connection(orgId, cpId);
    if (!c) return null;
    try {
      const result = await c.call(action, params, { callTimeoutMs: settings.commandTimeoutMs });
      // An answer the store cannot hold would fail the command's record after the charger acted.
      if (findIllFormedText(result, []))
        return { delivery: 'error', result: null, error: `PropertyConstraintViolation: The charger's answer is refused: ${UNSTORABLE_TEXT}` };
      return { delivery: 'local', result, error: null };
    } catch (err) {
      const e = err as { rpcErrorCode?: string; message?: string; details?: { data?: unknown } };
      // ocpp-rpc's TimeoutError keeps Error's name: known by its class.
      if (err instanceof ocppRpc.TimeoutError) return { delivery: 'timeout', result: null, error: 'The charger did not answer in time' };
      // Strict mode checks both ways against the official schema: the CALL before it is sent (its
      // data is these params: a fault of the hub, logged by the gateway) and the charger's answer.
      const violation = schemaViolation(e.details);
      if (violation) {
        const whose = e.details?.data === params ? 'The request was not sent: it' : "The charger's answer";
        return { delivery: 'error', result: null, error: `${violation.code}: ${whose} does not match the OCPP schema (${violation.description})` };
      }
      return { delivery: 'error', result: null, error: e.rpcErrorCode ? `${e.rpcErrorCode}: ${e.message ?? ''}`.trim() : 'The call failed' };
    }
  }

  /** Commands routed here by other instances, and their answers. */
  async function listen(): Promise<void> {
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
      retry = setTimeout(() => entries.settle('hub.command-routing', listen()), 5_000);
      retry.unref();
    }
  }

  return {
    listen,

    /**
     * Sends a CALL to a charger wherever it is connected: directly when this instance holds it,
     * else over the bus to the instance that does (its answer comes back the same way).
     */
    async command(orgId: string, cpId: string, action: string, params: unknown): Promise<CommandOutcome> {
      const local = await callLocal(orgId, cpId, action, params);
      if (local) return local;
      const holder = (await store.chargePoint(db, orgId, cpId))?.connected_instance;
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
      await bus.publish(`hub.cmd.${holder}`, { id, reply: instanceId, orgId, cpId, action, params });
      return answer;
    },

    async stop() {
      stopped = true;
      clearTimeout(retry);
      for (const u of unsubs.splice(0)) await u().catch(() => {});
    },
  };
}

export type CommandRouter = ReturnType<typeof createCommandRouter>;
