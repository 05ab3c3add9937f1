// EMS alert routing's settings: the SMTP server email goes through and the routed webhook deadline
// (read with the rest at start; docs/configuration.md, decision 0132).
import { configSection } from '../../core/config-section.ts';

export interface SmtpConfig {
  /** No host: email deliveries are recorded `failed` "email not configured". */
  host?: string;
  port: number;
  /** Implicit TLS from the first byte (port 465 style). */
  secure: boolean;
  /** Refuse to send unless the server upgrades the connection with STARTTLS (when not `secure`). */
  requireTls: boolean;
  /** Accept only certificates that verify (never false in production). */
  tlsRejectUnauthorized: boolean;
  /** The From: address of every message. */
  from: string;
  user?: string;
  password?: string;
  /** Connection, greeting and socket deadline of one message. */
  timeoutMs: number;
}

export interface EmsAlertsConfig {
  smtp: SmtpConfig;
  /** Deadline of one routed webhook or team-chat attempt (concepts.md 8: 10 s, one attempt). */
  webhookTimeoutMs: number;
  /**
   * How long one routing call (evaluate, dispatch, escalations check) starts deliveries for: those
   * not started by then are left for the next call and counted in `deferred` (decision 0515).
   */
  callBudgetMs: number;
}

export const emsAlertsConfig = configSection<EmsAlertsConfig>('ems-alerts', (r) => {
  const host = r.optional('SMTP_HOST')?.trim() || undefined;
  if (host !== undefined && !/^[A-Za-z0-9.:[\]-]{1,253}$/.test(host)) r.fail('SMTP_HOST must be a host name or address');
  const secure = r.bool('SMTP_SECURE', false);
  const user = r.optional('SMTP_USER');
  const password = r.optional('SMTP_PASSWORD');
  if (Boolean(user) !== Boolean(password)) r.fail('SMTP_USER and SMTP_PASSWORD must be set together');
  const tlsRejectUnauthorized = r.bool('SMTP_TLS_REJECT_UNAUTHORIZED', true);
  if (r.nodeEnv === 'production' && !tlsRejectUnauthorized) r.fail('SMTP_TLS_REJECT_UNAUTHORIZED cannot be false in production');
  return {
    smtp: {
      host,
      port: r.int('SMTP_PORT', secure ? 465 : 587, 1, 65535),
      secure,
      requireTls: r.bool('SMTP_REQUIRE_TLS', r.nodeEnv === 'production'),
      tlsRejectUnauthorized,
      from: r.pattern('SMTP_FROM', 'alerts@localhost', /^[^\s@<>]+@[^\s@<>]+$/, 'an email address'),
      user,
      password,
      timeoutMs: r.int('SMTP_TIMEOUT_MS', 10_000, 100, 60_000),
    },
    webhookTimeoutMs: r.int('ROUTING_WEBHOOK_TIMEOUT_MS', 10_000, 50, 10_000),
    callBudgetMs: r.int('ROUTING_CALL_BUDGET_MS', 30_000, 1_000, 600_000),
  };
});
