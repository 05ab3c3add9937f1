// The three ways a routed alert leaves the service: email over SMTP, a team-chat incoming webhook
// (Slack or Microsoft Teams shape) and the generic signed webhook `emsAlertRouted` (concepts.md
// section 6: Platform-Signature over the raw body; one attempt, 10 s, no retry). Every outbound
// address goes through the SSRF guard; a non-2xx answer or no answer in time is `failed`.
import { randomUUID } from 'node:crypto';
import nodemailer from 'nodemailer';
import type { Config } from '../../core/config.ts';
import type { EmsAlertsConfig } from './config.ts';
import { OutboundRefusedError, outboundRequest } from '../../infra/outbound/http-client.ts';
import { API_VERSION, signatureHeader } from '../devtools/index.ts';
import type { EmsAlertOut } from './views.ts';

export interface Attempt {
  outcome: 'delivered' | 'failed';
  status_code: number | null;
  error: string | null;
  duration_ms: number;
}

export interface RoutedMessage {
  orgId: string;
  alert: EmsAlertOut;
  rule: { id: string; name: string };
  reason: 'routed' | 'escalated';
  deliveryId: string;
}

const SEVERITY_COLOUR: Record<string, string> = { critical: 'D0021B', warning: 'F5A623', info: '4A90E2' };

/**
 * A value kept on its own line: control characters (CR, LF, tab, ...) and the Unicode line and
 * paragraph separators are written as visible escapes (`\r`, `\n`, `\u2028`), so no stored text
 * can add a header to an e-mail or a line to a message body or card. The schemas refuse them in
 * site ids and rule names; this covers values stored before that and any other source.
 */
export function oneLine(v: string): string {
  return v.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, (c) =>
    c === '\r' ? '\\r' : c === '\n' ? '\\n' : c === '\t' ? '\\t' : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** The alert and rule with every text member on one line (see oneLine). */
function lineSafe(m: RoutedMessage): RoutedMessage {
  const a = m.alert;
  const opt = (v: string | null) => (v === null ? null : oneLine(v));
  return {
    ...m,
    rule: { id: oneLine(m.rule.id), name: oneLine(m.rule.name) },
    alert: {
      ...a,
      title: oneLine(a.title),
      source: oneLine(a.source),
      severity: oneLine(a.severity),
      site_id: opt(a.site_id),
      asset_id: opt(a.asset_id),
      impact_method: oneLine(a.impact_method),
    },
  };
}

export function subjectOf(message: RoutedMessage): string {
  const m = lineSafe(message);
  const prefix = m.reason === 'escalated' ? 'ESCALATED ' : '';
  return `[${prefix}EMS ${m.alert.severity}] £${m.alert.impact_gbp_per_day}/day: ${m.alert.title}`;
}

export function textOf(message: RoutedMessage): string {
  const m = lineSafe(message);
  const a = m.alert;
  return [
    `${a.title}`,
    '',
    `Impact: £${a.impact_gbp_per_day} per day (${a.impact_method})`,
    `Severity: ${a.severity}`,
    `Source: ${a.source}`,
    `Site: ${a.site_id ?? '-'}`,
    `Asset: ${a.asset_id ?? '-'}`,
    `Since: ${a.since}`,
    `Evidence: ${JSON.stringify(a.evidence)}`,
    '',
    `Alert ${a.id}, routed by rule "${m.rule.name}" (${m.rule.id})${m.reason === 'escalated' ? ': not acknowledged in time, escalated' : ''}.`,
    'Acknowledge: POST /api/hardware/admin/alerts-history/' + a.id + '/acknowledge',
  ].join('\n');
}

/** Slack incoming-webhook body: `text` (the notification fallback) and Block Kit blocks. */
export function slackBody(message: RoutedMessage) {
  const m = lineSafe(message);
  const a = m.alert;
  return {
    text: subjectOf(m),
    blocks: [
      { type: 'header', text: { type: 'plain_text', text: `${m.reason === 'escalated' ? 'Escalated: ' : ''}${a.title}`.slice(0, 150) } },
      {
        type: 'section',
        fields: [
          { type: 'mrkdwn', text: `*Impact*\n£${a.impact_gbp_per_day}/day` },
          { type: 'mrkdwn', text: `*Severity*\n${a.severity}` },
          { type: 'mrkdwn', text: `*Source*\n${a.source}` },
          { type: 'mrkdwn', text: `*Site / asset*\n${a.site_id ?? '-'} / ${a.asset_id ?? '-'}` },
        ],
      },
      { type: 'context', elements: [{ type: 'mrkdwn', text: `Since ${a.since} · alert ${a.id} · rule ${m.rule.name}` }] },
    ],
  };
}

/** Microsoft Teams (Workflows incoming webhook) body: a message carrying an Adaptive Card. */
export function teamsBody(message: RoutedMessage) {
  const m = lineSafe(message);
  const a = m.alert;
  return {
    type: 'message',
    attachments: [
      {
        contentType: 'application/vnd.microsoft.card.adaptive',
        contentUrl: null,
        content: {
          $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
          type: 'AdaptiveCard',
          version: '1.4',
          body: [
            { type: 'TextBlock', size: 'Medium', weight: 'Bolder', wrap: true, text: `${m.reason === 'escalated' ? 'Escalated: ' : ''}${a.title}` },
            {
              type: 'FactSet',
              facts: [
                { title: 'Impact', value: `£${a.impact_gbp_per_day}/day` },
                { title: 'Severity', value: a.severity },
                { title: 'Source', value: a.source },
                { title: 'Site', value: a.site_id ?? '-' },
                { title: 'Asset', value: a.asset_id ?? '-' },
                { title: 'Since', value: a.since },
              ],
            },
            { type: 'TextBlock', isSubtle: true, wrap: true, text: `Alert ${a.id} · rule ${m.rule.name} · colour ${SEVERITY_COLOUR[a.severity] ?? ''}` },
          ],
        },
      },
    ],
  };
}

/** The `emsAlertRouted` event: the envelope of concepts.md section 6, rule 3. */
export function routedEvent(m: RoutedMessage, createdAt: Date) {
  const { impact_pence: _omit, ...alert } = m.alert;
  return {
    id: `evt_${randomUUID().replace(/-/g, '')}`,
    type: 'emsAlertRouted',
    created_at: createdAt.toISOString(),
    organisation_id: m.orgId,
    api_version: API_VERSION,
    data: { alert, rule: m.rule, reason: m.reason, delivery_id: m.deliveryId },
  };
}

export function createChannels(config: Config, settings: EmsAlertsConfig) {
  const timeoutMs = settings.webhookTimeoutMs;
  const noAnswer = `connection failed: no HTTP answer within ${timeoutMs % 1000 === 0 ? `${timeoutMs / 1000} s` : `${timeoutMs} ms`}`;
  const smtp = settings.smtp;
  const transport = smtp.host
    ? nodemailer.createTransport({
        host: smtp.host,
        port: smtp.port,
        secure: smtp.secure,
        requireTLS: smtp.requireTls,
        tls: { rejectUnauthorized: smtp.tlsRejectUnauthorized },
        auth: smtp.user ? { user: smtp.user, pass: smtp.password } : undefined,
        connectionTimeout: smtp.timeoutMs,
        greetingTimeout: smtp.timeoutMs,
        socketTimeout: smtp.timeoutMs,
      })
    : null;

  /** One POST through the SSRF guard; 2xx = delivered, anything else failed. */
  async function post(url: string, body: string, headers: Record<string, string>): Promise<Attempt> {
    const t0 = performance.now();
    try {
      const res = await outboundRequest(
        url,
        { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body },
        { allowPrivate: config.allowPrivateOutbound, requireHttps: true, timeoutMs, maxResponseBytes: 64 * 1024 },
      );
      const ok = res.status >= 200 && res.status <= 299;
      return {
        outcome: ok ? 'delivered' : 'failed',
        status_code: res.status,
        error: ok ? null : res.status >= 300 && res.status < 400 ? `redirect (${res.status}) not followed` : `HTTP ${res.status}`,
        duration_ms: Math.round(performance.now() - t0),
      };
    } catch (e) {
      // The address policy's refusal names the rule; nothing about what the network answered (decision 0016).
      return { outcome: 'failed', status_code: null, error: e instanceof OutboundRefusedError ? `refused: ${e.message}` : noAnswer, duration_ms: 0 };
    }
  }

  return {
    emailConfigured: transport !== null,
    timeoutMs,
    from: smtp.from,

    async email(to: string, m: RoutedMessage): Promise<Attempt> {
      if (!transport) return { outcome: 'failed', status_code: null, error: 'email not configured (SMTP_HOST unset)', duration_ms: 0 };
      const t0 = performance.now();
      try {
        const info = await transport.sendMail({
          from: smtp.from,
          to,
          subject: subjectOf(m),
          text: textOf(m),
          headers: { 'X-Platform-Alert-Id': m.alert.id, 'X-Platform-Delivery-Id': m.deliveryId },
        });
        const code = Number(/^(\d{3})/.exec(String(info.response ?? ''))?.[1] ?? 250);
        const accepted = (info.accepted ?? []).length > 0;
        return {
          outcome: accepted ? 'delivered' : 'failed',
          status_code: code,
          error: accepted ? null : 'recipient refused',
          duration_ms: Math.round(performance.now() - t0),
        };
      } catch (e) {
        const code = (e as { responseCode?: number }).responseCode;
        return {
          outcome: 'failed',
          status_code: typeof code === 'number' ? code : null,
          error: typeof code === 'number' ? `SMTP ${code}` : 'SMTP connection failed',
          duration_ms: Math.round(performance.now() - t0),
        };
      }
    },

    async teamChat(url: string, format: 'slack' | 'teams', m: RoutedMessage): Promise<Attempt> {
      return post(url, JSON.stringify(format === 'teams' ? teamsBody(m) : slackBody(m)), {});
    },

    async webhook(url: string, secret: string, event: ReturnType<typeof routedEvent>, now: Date): Promise<Attempt> {
      const body = JSON.stringify(event);
      const t = Math.floor(now.getTime() / 1000);
      return post(url, body, {
        'platform-signature': signatureHeader(body, t, [secret]),
        'platform-event-id': event.id,
        'platform-event-type': event.type,
        'platform-delivery-id': String(event.data.delivery_id),
      });
    },

    close() {
      transport?.close();
    },
  };
}

export type Channels = ReturnType<typeof createChannels>;
