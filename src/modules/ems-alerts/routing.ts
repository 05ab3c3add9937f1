// EMS alert routing (module ems/routing): rules that match alerts on severity, source, site and
// minimum impact and name channels; deliveries only when called (evaluate routes newly raised
// alerts, dispatch routes open ones, escalations/check escalates unacknowledged ones after each
// rule's delay). Each (alert, channel, reason) is claimed in the store before anything is sent, so
// no alert reaches a channel twice for the same reason, whichever instance runs the call.
import { createHash, randomUUID } from 'node:crypto';
import type { Config } from '../../core/config.ts';
import type { Db } from '../../infra/db/index.ts';
import { checkTarget, OutboundRefusedError } from '../../infra/outbound/http-client.ts';
import type { Clock } from '../../platform/clock.ts';
import { pageAfter, type CursorCodec } from '../../platform/cursor.ts';
import { errors } from '../../platform/errors.ts';
import type { RequestContext } from '../../platform/operation.ts';
import { isoTime, isoTimeOrNull } from '../../platform/schema-kit.ts';
import type { AuditLog } from '../audit/index.ts';
import type { SecretBox } from '../devtools/index.ts';
import type { Members } from '../identity/index.ts';
import { inQuietHours, type NotificationKind, type NotificationService } from '../notifications/index.ts';
import { routedEvent, type Attempt, type Channels, type RoutedMessage } from './channels.ts';
import { emsErrors } from './errors.ts';
import { penceOf } from '../../kit/decimal.ts';
import { emsStore, type DeliveryRow, type RuleRow, type StoredChannel } from './store.ts';
import type { EmsAlertOut } from './views.ts';

export const MAX_RULES = 100;
const SECRET_RE = /^whsec_[A-Za-z0-9+/]{32,}={0,2}$/;

export type ChannelIn =
  | { type: 'email'; to: string }
  | { type: 'team_chat'; url: string; format?: 'slack' | 'teams' }
  | { type: 'webhook'; url: string; secret?: string }
  | { type: 'user'; user_id: string };

export interface RuleIn {
  name: string;
  enabled?: boolean;
  match?: { severities?: string[]; sources?: string[]; site_ids?: string[]; min_impact_gbp_per_day?: string };
  channels: ChannelIn[];
  escalation?: { after_minutes: number; channels: ChannelIn[] } | null;
}

const hash16 = (s: string) => createHash('sha256').update(s).digest('hex').slice(0, 16);

export function channelKey(c: StoredChannel): string {
  switch (c.type) {
    case 'email':
      return `email:${c.to.toLowerCase()}`;
    case 'team_chat':
      return `team_chat:${c.key}`;
    case 'webhook':
      return `webhook:${c.url}`;
    case 'user':
      return `user:${c.user_id}`;
  }
}

/** Where a channel points, safe to show: a team-chat URL is itself a credential, so only its host shows. */
function targetOf(c: StoredChannel): string {
  switch (c.type) {
    case 'email':
      return c.to;
    case 'team_chat':
      return c.url_hint;
    case 'webhook':
      return c.url;
    case 'user':
      return c.user_id;
  }
}

export function channelView(c: StoredChannel) {
  const base = { type: c.type, channel_key: channelKey(c) };
  switch (c.type) {
    case 'email':
      return { ...base, to: c.to };
    case 'team_chat':
      return { ...base, format: c.format, url_hint: c.url_hint };
    case 'webhook':
      return { ...base, url: c.url, secret_set: true };
    case 'user':
      return { ...base, user_id: c.user_id };
  }
}

export function ruleView(r: RuleRow) {
  return {
    id: r.id,
    name: r.name,
    enabled: r.enabled,
    match: {
      severities: (r.match.severities as string[] | undefined) ?? [],
      sources: (r.match.sources as string[] | undefined) ?? [],
      site_ids: (r.match.site_ids as string[] | undefined) ?? [],
      min_impact_gbp_per_day: (r.match.min_impact_gbp_per_day as string | undefined) ?? null,
    },
    channels: r.channels.map(channelView),
    escalation: r.escalation ? { after_minutes: r.escalation.after_minutes, channels: r.escalation.channels.map(channelView) } : null,
    created_at: isoTime(r.created_at),
    created_by: r.created_by,
    updated_at: isoTime(r.updated_at),
    updated_by: r.updated_by,
  };
}

export function deliveryView(d: DeliveryRow) {
  return {
    id: d.id,
    alert_id: d.alert_id,
    rule_id: d.rule_id,
    channel_type: d.channel_type,
    channel_key: d.channel_key,
    target: d.target,
    reason: d.reason,
    trigger: d.trigger,
    outcome: d.outcome,
    status_code: d.status_code,
    error: d.error,
    event_id: d.event_id,
    attempted_at: isoTime(d.attempted_at),
    duration_ms: d.duration_ms,
  };
}
export type DeliveryView = ReturnType<typeof deliveryView>;

export function ruleMatches(r: RuleRow, a: EmsAlertOut): boolean {
  if (!r.enabled) return false;
  const m = r.match as RuleIn['match'] & object;
  if (m.severities?.length && !m.severities.includes(a.severity)) return false;
  if (m.sources?.length && !m.sources.includes(a.source)) return false;
  if (m.site_ids?.length && (!a.site_id || !m.site_ids.includes(a.site_id))) return false;
  if (m.min_impact_gbp_per_day && a.impact_pence < penceOf(m.min_impact_gbp_per_day)) return false;
  return true;
}

type Trigger = 'evaluate' | 'dispatch' | 'escalations_check';

interface Planned {
  alert: EmsAlertOut;
  rule: RuleRow;
  channel: StoredChannel;
  reason: 'routed' | 'escalated';
}

export function createRouting(deps: {
  db: Db;
  clock: Clock;
  config: Config;
  /** How long one call starts deliveries for (ROUTING_CALL_BUDGET_MS, decision 0515). */
  callBudgetMs: number;
  audit: AuditLog;
  cursors: CursorCodec;
  box: SecretBox;
  channels: Channels;
  members: Members;
  notifications: NotificationService;
}) {
  const { db, clock, config, audit, cursors, box, channels, members, notifications } = deps;

  /** Validates and seals channels; `previous` keeps a webhook's secret when a PUT leaves it out. */
  async function sealChannels(ctx: RequestContext, list: ChannelIn[], path: string[], previous: StoredChannel[]): Promise<StoredChannel[]> {
    const out: StoredChannel[] = [];
    for (const [i, c] of list.entries()) {
      const loc = [...path, i];
      if (c.type === 'email') out.push({ type: 'email', to: c.to.trim() });
      else if (c.type === 'user') {
        if (!(await members.member(db, ctx.orgId, c.user_id))) throw emsErrors.field([...loc, 'user_id'], 'not a member of this organisation', c.user_id);
        out.push({ type: 'user', user_id: c.user_id });
      } else {
        // The webhooks' registration check and words: public HTTPS, the host's addresses resolved now.
        try {
          await checkTarget(c.url, { allowPrivate: config.allowPrivateOutbound });
        } catch (e) {
          if (e instanceof OutboundRefusedError) throw emsErrors.field([...loc, 'url'], `URL refused: ${e.message}`, c.url);
          throw e;
        }
        if (c.type === 'team_chat') {
          const u = new URL(c.url);
          out.push({ type: 'team_chat', format: c.format ?? 'slack', url_enc: box.seal(c.url), url_hint: `${u.protocol}//${u.host}/…`, key: hash16(c.url) });
        } else {
          let secretEnc: string;
          if (c.secret !== undefined) {
            if (!SECRET_RE.test(c.secret) || Buffer.from(c.secret.slice(6), 'base64').length < 24) {
              throw emsErrors.field([...loc, 'secret'], 'must be whsec_ followed by the base64 of at least 24 random bytes', '(hidden)');
            }
            secretEnc = box.seal(c.secret);
          } else {
            const kept = previous.find((p) => p.type === 'webhook' && p.url === c.url) as Extract<StoredChannel, { type: 'webhook' }> | undefined;
            if (!kept)
              throw emsErrors.field(
                [...loc, 'secret'],
                'required for a new webhook channel (write-only; a PUT without it keeps the stored one for the same url)',
                null,
              );
            secretEnc = kept.secret_enc;
          }
          out.push({ type: 'webhook', url: c.url, secret_enc: secretEnc });
        }
      }
    }
    const keys = out.map(channelKey);
    const dup = keys.findIndex((k, i) => keys.indexOf(k) !== i);
    if (dup >= 0) throw emsErrors.field([...path, dup], 'the same channel is named twice', keys[dup]);
    return out;
  }

  const actorId = (ctx: RequestContext) => (ctx.actor.kind === 'user' ? ctx.actor.userId : null);

  async function sendOne(orgId: string, p: Planned, trigger: Trigger, out: DeliveryView[]): Promise<'sent' | 'claimed'> {
    const now = clock.now();
    const id = `rdl_${randomUUID().replace(/-/g, '')}`;
    const message: RoutedMessage = { orgId, alert: p.alert, rule: { id: p.rule.id, name: p.rule.name }, reason: p.reason, deliveryId: id };
    const base = { alert_id: p.alert.id, rule_id: p.rule.id, reason: p.reason, trigger, attempted_at: now };
    const c = p.channel;

    if (c.type === 'user') {
      const member = await members.member(db, orgId, c.user_id);
      const prefs = await notifications.preferences(db, orgId, c.user_id);
      const kind: NotificationKind = p.reason === 'escalated' ? 'alert_escalated' : 'alert_routed';
      const suppress = async (key: string, type: string, why: string) =>
        out.push(
          deliveryView(
            await emsStore.suppressed(db, orgId, {
              id: `rdl_${randomUUID().replace(/-/g, '')}`,
              ...base,
              channel_key: key,
              channel_type: type,
              target: c.user_id,
              error: why,
              event_id: null,
            }),
          ),
        );
      if (!member || !prefs.kinds[kind]) {
        await suppress(channelKey(c), 'in_app', member ? `${kind} switched off in the user's preferences` : 'not a member of this organisation');
        return 'sent';
      }
      let any = false;
      if (prefs.channels.in_app) {
        const claim = await emsStore.claim(db, orgId, { id, ...base, channel_key: channelKey(c), channel_type: 'in_app', target: c.user_id, event_id: null });
        if (claim) {
          any = true;
          const t0 = performance.now();
          await notifications.notify(db, {
            orgId,
            userId: c.user_id,
            kind,
            title: `${p.reason === 'escalated' ? 'Escalated: ' : ''}${p.alert.title}`,
            body: `£${p.alert.impact_gbp_per_day}/day · ${p.alert.severity} · ${p.alert.source}`,
            link: `/api/hardware/ems/alerts`,
            data: { alert_id: p.alert.id, rule_id: p.rule.id, delivery_id: id },
          });
          out.push(
            deliveryView(
              await emsStore.record(db, orgId, id, { outcome: 'delivered', status_code: null, error: null, duration_ms: Math.round(performance.now() - t0) }),
            ),
          );
        }
      }
      if (prefs.channels.email) {
        const key = `${channelKey(c)}:email`;
        if (inQuietHours(prefs.quiet_hours, now)) await suppress(key, 'email', 'quiet hours: held until a dispatch outside them');
        else {
          const eid = `rdl_${randomUUID().replace(/-/g, '')}`;
          const claim = await emsStore.claim(db, orgId, { id: eid, ...base, channel_key: key, channel_type: 'email', target: member.email, event_id: null });
          if (claim) {
            any = true;
            const attempt = await channels.email(member.email, { ...message, deliveryId: eid });
            out.push(deliveryView(await emsStore.record(db, orgId, eid, attempt)));
          }
        }
      }
      if (!prefs.channels.in_app && !prefs.channels.email) await suppress(channelKey(c), 'in_app', "every channel switched off in the user's preferences");
      return any ? 'sent' : 'claimed';
    }

    const event = c.type === 'webhook' ? routedEvent(message, now) : null;
    const claim = await emsStore.claim(db, orgId, {
      id,
      ...base,
      channel_key: channelKey(c),
      channel_type: c.type,
      target: targetOf(c),
      event_id: event?.id ?? null,
    });
    if (!claim) return 'claimed';
    let attempt: Attempt;
    if (c.type === 'email') attempt = await channels.email(c.to, message);
    else if (c.type === 'team_chat') attempt = await channels.teamChat(box.open(c.url_enc), c.format, message);
    else attempt = await channels.webhook(c.url, box.open(c.secret_enc), event!, now);
    out.push(deliveryView(await emsStore.record(db, orgId, id, attempt)));
    return 'sent';
  }

  /**
   * Sends the planned deliveries, a few at a time; one channel once per call (first rule wins).
   * Deliveries are started for `callBudgetMs` of the service's clock and no longer (decision 0515):
   * one attempt may take its 10 s, and an organisation with a hundred rules of ten channels each to
   * receivers that never answer would otherwise hold the call (and its place) for hours. Those not
   * started are `deferred`: nothing claimed them, so the next dispatch or escalation check sends them.
   */
  async function run(orgId: string, planned: Planned[], trigger: Trigger) {
    const seen = new Set<string>();
    const unique = planned.filter((p) => {
      const k = `${p.alert.id}|${channelKey(p.channel)}|${p.reason}`;
      if (seen.has(k)) return false;
      seen.add(k);
      return true;
    });
    const out: DeliveryView[] = [];
    let already = 0;
    let next = 0;
    const until = clock.now().getTime() + deps.callBudgetMs;
    const worker = async () => {
      while (next < unique.length && clock.now().getTime() < until) {
        const p = unique[next++];
        if ((await sendOne(orgId, p, trigger, out)) === 'claimed') already++;
      }
    };
    await Promise.all(Array.from({ length: Math.min(4, unique.length) }, worker));
    out.sort((a, b) => (a.attempted_at < b.attempted_at ? -1 : a.attempted_at > b.attempted_at ? 1 : a.id < b.id ? -1 : 1));
    return { deliveries: out, already_delivered: already, deferred: unique.length - next };
  }

  async function plan(orgId: string, alerts: EmsAlertOut[], reason: 'routed' | 'escalated'): Promise<Planned[]> {
    const rules = await emsStore.rules(db, orgId);
    const now = clock.now().getTime();
    const out: Planned[] = [];
    for (const a of alerts) {
      for (const r of rules) {
        if (!ruleMatches(r, a)) continue;
        if (reason === 'routed') for (const c of r.channels) out.push({ alert: a, rule: r, channel: c, reason });
        else if (r.escalation && a.acknowledged_at === null && now - Date.parse(a.raised_at) >= r.escalation.after_minutes * 60_000) {
          for (const c of r.escalation.channels) out.push({ alert: a, rule: r, channel: c, reason });
        }
      }
    }
    return out;
  }

  return {
    /** Routes these alerts (newly raised, or every open one) to the channels of the rules they match. */
    async route(ctx: RequestContext, alerts: EmsAlertOut[], trigger: Trigger) {
      const result = await run(ctx.orgId, await plan(ctx.orgId, alerts, 'routed'), trigger);
      if (result.deliveries.length > 0) {
        await audit.record(db, ctx, { action: 'ems.routing.dispatch', details: { trigger, deliveries: result.deliveries.length } });
      }
      return { alerts_considered: alerts.length, ...result };
    },

    async escalate(ctx: RequestContext, alerts: EmsAlertOut[]) {
      const candidates = alerts.filter((a) => a.acknowledged_at === null);
      const result = await run(ctx.orgId, await plan(ctx.orgId, candidates, 'escalated'), 'escalations_check');
      if (result.deliveries.length > 0) {
        await audit.record(db, ctx, { action: 'ems.routing.escalate', details: { deliveries: result.deliveries.length } });
      }
      return { checked_at: clock.now().toISOString(), alerts_considered: candidates.length, ...result };
    },

    async listRules(ctx: RequestContext) {
      return { rules: (await emsStore.rules(db, ctx.orgId)).map(ruleView) };
    },

    async createRule(ctx: RequestContext, body: RuleIn) {
      const channelsSealed = await sealChannels(ctx, body.channels, ['channels'], []);
      const escalation = body.escalation
        ? { after_minutes: body.escalation.after_minutes, channels: await sealChannels(ctx, body.escalation.channels, ['escalation', 'channels'], []) }
        : null;
      const now = clock.now();
      const row = await db.tx(async (q) => {
        if ((await emsStore.countRules(q, ctx.orgId)) >= MAX_RULES) throw emsErrors.tooManyRules(MAX_RULES);
        const r = await emsStore.insertRule(q, ctx.orgId, {
          id: `rule_${randomUUID().replace(/-/g, '').slice(0, 20)}`,
          name: body.name,
          enabled: body.enabled ?? true,
          match: body.match ?? {},
          channels: channelsSealed,
          escalation,
          created_at: now,
          created_by: actorId(ctx),
          updated_at: now,
          updated_by: actorId(ctx),
        });
        await audit.record(q, ctx, {
          action: 'ems.routing.rule.create',
          targetType: 'routing_rule',
          targetId: r.id,
          details: { channels: channelsSealed.map((c) => c.type) },
        });
        return r;
      });
      return ruleView(row);
    },

    async updateRule(ctx: RequestContext, id: string, body: RuleIn) {
      const existing = await emsStore.rule(db, ctx.orgId, id);
      if (!existing) throw errors.notFound();
      const previous = [...existing.channels, ...(existing.escalation?.channels ?? [])];
      const channelsSealed = await sealChannels(ctx, body.channels, ['channels'], previous);
      const escalation = body.escalation
        ? { after_minutes: body.escalation.after_minutes, channels: await sealChannels(ctx, body.escalation.channels, ['escalation', 'channels'], previous) }
        : null;
      const rotated = [...body.channels, ...(body.escalation?.channels ?? [])].filter((c) => c.type === 'webhook' && c.secret !== undefined).length;
      const row = await db.tx(async (q) => {
        const r = await emsStore.updateRule(q, ctx.orgId, id, {
          name: body.name,
          enabled: body.enabled ?? true,
          match: body.match ?? {},
          channels: channelsSealed,
          escalation,
          updated_at: clock.now(),
          updated_by: actorId(ctx),
        });
        if (!r) throw errors.notFound();
        await audit.record(q, ctx, { action: 'ems.routing.rule.update', targetType: 'routing_rule', targetId: id, details: { secrets_set: rotated } });
        return r;
      });
      return ruleView(row);
    },

    async deleteRule(ctx: RequestContext, id: string) {
      await db.tx(async (q) => {
        if (!(await emsStore.deleteRule(q, ctx.orgId, id))) throw errors.notFound();
        await audit.record(q, ctx, { action: 'ems.routing.rule.delete', targetType: 'routing_rule', targetId: id });
      });
    },

    async listChannels(ctx: RequestContext) {
      const rules = await emsStore.rules(db, ctx.orgId);
      const inUse = new Map<string, { channel: ReturnType<typeof channelView>; rules: Set<string>; escalation_rules: Set<string> }>();
      const add = (c: StoredChannel, ruleId: string, esc: boolean) => {
        const k = channelKey(c);
        const e = inUse.get(k) ?? { channel: channelView(c), rules: new Set<string>(), escalation_rules: new Set<string>() };
        (esc ? e.escalation_rules : e.rules).add(ruleId);
        inUse.set(k, e);
      };
      for (const r of rules) {
        for (const c of r.channels) add(c, r.id, false);
        for (const c of r.escalation?.channels ?? []) add(c, r.id, true);
      }
      return {
        types: CHANNEL_TYPES.map((t) => ({ ...t, available: t.type === 'email' ? channels.emailConfigured : true })),
        email: { configured: channels.emailConfigured, from: channels.emailConfigured ? channels.from : null },
        webhook: {
          attempts: 1,
          timeout_seconds: channels.timeoutMs / 1000,
          retry: false,
          signature_header: 'Platform-Signature',
          event_type: 'emsAlertRouted',
        },
        channels: [...inUse.values()].map((e) => ({ ...e.channel, rule_ids: [...e.rules], escalation_rule_ids: [...e.escalation_rules] })),
      };
    },

    async listDeliveries(ctx: RequestContext, query: { limit?: number; cursor?: string; alert_id?: string; rule_id?: string; outcome?: string }) {
      const limit = query.limit ?? 50;
      const filters = { alert_id: query.alert_id ?? null, rule_id: query.rule_id ?? null, outcome: query.outcome ?? null };
      const binding = { op: 'listRoutedDeliveries', orgId: ctx.orgId, filters };
      const paged = pageAfter(cursors, binding, query.cursor, limit);
      const rows = await emsStore.pageDeliveries(db, ctx.orgId, {
        alertId: query.alert_id,
        ruleId: query.rule_id,
        outcome: query.outcome,
        before: paged.after && { t: paged.after.t, seq: Number(paged.after.id) },
        limit: limit + 1,
      });
      const page = paged.page(rows, (r) => ({ t: r.attempted_key, id: r.seq }));
      return { deliveries: page.items.map(deliveryView), next_cursor: page.next_cursor, has_more: page.has_more };
    },
  };
}

export const CHANNEL_TYPES = [
  { type: 'email', description: "A message over SMTP to one address (the service's configured mail server).", fields: ['to'] },
  {
    type: 'team_chat',
    description:
      'A team-chat incoming webhook: Slack (`text` + Block Kit `blocks`) or Microsoft Teams (a message with an Adaptive Card). The URL is write-only.',
    fields: ['url', 'format'],
  },
  {
    type: 'webhook',
    description:
      'The generic signed webhook: event `emsAlertRouted`, Platform-Signature over the raw body, one attempt, 10 s, no retry. The secret is write-only.',
    fields: ['url', 'secret'],
  },
  {
    type: 'user',
    description: 'A member of the organisation: in-app notification and, if their preferences say so, email outside their quiet hours.',
    fields: ['user_id'],
  },
] as const;

export type Routing = ReturnType<typeof createRouting>;
export { isoTimeOrNull };
