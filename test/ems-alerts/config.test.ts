// The ems-alerts settings section: SMTP variables read and refused by the one loader.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig, sectionOf } from '../../src/config.ts';
import { emsAlertsConfig } from '../../src/modules/ems-alerts/config.ts';

const base = { DATA_DIR: ':memory:' };

test('SMTP settings: defaults, values, and refusals naming the variable', () => {
  const d = sectionOf(loadConfig(base), emsAlertsConfig);
  assert.deepEqual(d.smtp, {
    host: undefined,
    port: 587,
    secure: false,
    requireTls: false,
    tlsRejectUnauthorized: true,
    from: 'alerts@localhost',
    user: undefined,
    password: undefined,
    timeoutMs: 10_000,
  });
  assert.equal(d.webhookTimeoutMs, 10_000);
  const s = sectionOf(
    loadConfig({ ...base, SMTP_HOST: 'smtp.example.com', SMTP_SECURE: 'true', SMTP_FROM: 'ems@example.com', SMTP_USER: 'u', SMTP_PASSWORD: 'p' }),
    emsAlertsConfig,
  ).smtp;
  assert.equal(s.port, 465);
  assert.equal(s.secure, true);
  assert.equal(s.user, 'u');
  assert.throws(() => loadConfig({ ...base, SMTP_USER: 'u' }), /SMTP_USER and SMTP_PASSWORD must be set together/);
  assert.throws(() => loadConfig({ ...base, SMTP_FROM: 'not an address' }), /SMTP_FROM/);
  assert.throws(() => loadConfig({ ...base, SMTP_PORT: '70000' }), /SMTP_PORT/);
  assert.throws(() => loadConfig({ ...base, ROUTING_WEBHOOK_TIMEOUT_MS: '20000' }), /ROUTING_WEBHOOK_TIMEOUT_MS/, "never above the spec's 10 s");
});
