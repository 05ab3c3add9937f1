// The operators' console and the live stream it follows, against a running service:
// - GET /api/live/events (server-sent events) through a real socket: refused without a token,
//   declared in the OpenAPI document, telemetry and alert transitions of the caller's organisation
//   only, and fanned out to a subscriber on a second instance through the bus;
// - the console in Debian's Chromium (playwright-core): sign in, a chart drawn from ingested
//   data, live telemetry, acknowledge an alert, issue and revoke an API key, sign out; axe-core on
//   every screen. Skipped, saying why, when /usr/bin/chromium is absent (.ci/run installs it).
// A failing browser test leaves a screenshot (its path is printed). CONSOLE_SCREENSHOTS=<dir>
// saves one screenshot per screen there (docs/console/ is made that way).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { json, startTestService, type TestService } from '../helpers/service.ts';
import { assertRefused } from '../helpers/refusal.ts';
import { openStream } from '../helpers/sse.ts';
import { call, ok, seedScenario, startAt, tokenFor, clockOf } from '../ems-alerts/helpers.ts';
import { CONSOLE_DIST } from '../../src/platform/console-ui.ts';
import { CHROMIUM_ARGS } from './browser.ts';

// Globals of the page, for the functions page.evaluate runs there (this file type-checks without the DOM library).
declare const document: any, window: any, localStorage: any, sessionStorage: any;

const CHROMIUM = '/usr/bin/chromium';
const ORG = 'console-org';
const OTHER = 'console-other';
const EMAIL = 'operator@console.test';
const PASSWORD = 'correct-horse-battery-staple';

let svc: TestService;
let second: TestService;
let base: string;
let base2: string;
let admin: string;
let other: string;

before(async () => {
  // A fresh clone builds the console at `npm ci`; build it here if this checkout has not.
  if (!existsSync(`${CONSOLE_DIST}index.html`)) await (await import('../../console/build.ts')).buildConsole();
  svc = await startAt();
  second = await startTestService({ shareWith: svc });
  await svc.createOrg(ORG);
  await svc.createOrg(OTHER);
  await svc.createUser(ORG, EMAIL, 'ORG_ADMIN', PASSWORD);
  admin = await tokenFor(svc, ORG);
  other = await tokenFor(svc, OTHER);
  await seedScenario(svc, admin);
  // Site "home" for the energy screen: a site meter importing 1.5 kW from midnight to 06:00 and
  // exporting 1 kW from 11:00 to 14:00 UTC on 23 November, and PV at 2 kW from 09:00 to 15:00,
  // sampled every 5 minutes (the ledger integrates power over each half hour).
  await ok(
    svc,
    admin,
    'POST',
    '/api/twin/registry/assets',
    { asset_id: 'home-meter', site_id: 'home', type: 'meter', name: 'Home meter', asset_class: 'site_meter', details: {} },
    201,
  );
  await ok(
    svc,
    admin,
    'POST',
    '/api/twin/registry/assets',
    { asset_id: 'home-pv', site_id: 'home', type: 'inverter', name: 'Home PV', asset_class: 'inverter', parent_asset_id: 'home-meter', details: {} },
    201,
  );
  const records = [];
  for (let t = Date.parse('2026-11-23T00:00:00Z'); t <= Date.parse('2026-11-24T00:00:00Z'); t += 300_000) {
    const h = new Date(t).getUTCHours();
    records.push({ asset_id: 'home-meter', ts: new Date(t).toISOString(), power_kw: h < 6 ? 1.5 : h >= 11 && h < 14 ? -1 : 0 });
    records.push({ asset_id: 'home-pv', ts: new Date(t).toISOString(), power_kw: h >= 9 && h < 15 ? -2 : 0 });
  }
  await ok(svc, admin, 'POST', '/api/telemetry/ingest', records);
  // One signed settlement receipt for the receipts screen.
  await ok(
    svc,
    admin,
    'POST',
    '/api/vpp/vpp/settle/receipts/issue',
    {
      site_id: 'S1',
      asset_id: 'bat-1',
      reference: 'dispatch-1',
      period_start: '2026-11-23T17:00:00Z',
      period_end: '2026-11-23T17:30:00Z',
      direction: 'turn_down',
      delivered_wh: 1250,
      source_basis: 'measured',
    },
    201,
  );
  base = await svc.app.listen({ port: 0, host: '127.0.0.1' });
  base2 = await second.app.listen({ port: 0, host: '127.0.0.1' });
});
after(async () => {
  await second?.stop();
  await svc?.stop();
});

test('the live stream refuses a request without a token, and is declared in the OpenAPI document as an event stream', async () => {
  const res = await svc.request({ method: 'GET', url: '/api/live/events' });
  assertRefused(res, 401, 'Authorization header missing');
  const doc = json(await svc.request({ method: 'GET', url: '/openapi.json' }));
  const op = doc.paths['/api/live/events'].get;
  assert.equal(op.operationId, 'streamLiveEvents');
  assert.ok(op.responses['200'].content['text/event-stream'], 'the answer is text/event-stream');
  assert.deepEqual(op.security, [{ bearerAuth: [] }]);
});

test('the live stream states its data basis: stored records for a production organisation, simulated for a demo organisation', async () => {
  await svc.createOrg('demo-console');
  const demo = await openStream(base, await tokenFor(svc, 'demo-console'));
  const prod = await openStream(base, admin);
  try {
    assert.equal(demo.res.headers.get('x-platform-data-basis'), 'simulated');
    assert.match(String(demo.res.headers.get('x-platform-method')), /^Demo organisation: simulated devices and synthetic readings/);
    assert.equal(demo.events[0].data.data_basis, 'simulated');
    assert.equal(prod.res.headers.get('x-platform-data-basis'), 'stored');
    assert.equal(prod.events[0].data.data_basis, 'stored');
  } finally {
    await demo.close();
    await prod.close();
  }
});

test('a subscriber gets its own organisation’s telemetry and alert transitions, on another instance too, and nothing of another organisation', async () => {
  const mine = await openStream(base, admin);
  const onSecond = await openStream(base2, admin);
  const theirs = await openStream(base, other);
  try {
    assert.equal(mine.res.headers.get('content-type'), 'text/event-stream; charset=utf-8');
    assert.ok(mine.res.headers.get('x-request-id'));
    const ts = clockOf(svc).now().toISOString();
    await ok(svc, admin, 'POST', '/api/telemetry/ingest', [{ asset_id: 'bat-1', ts, power_kw: 3.5, soc_pct: 81 }]);
    const seen = await mine.next('my telemetry', (e) => e.event === 'telemetry');
    assert.deepEqual(
      { asset_id: seen.data.records[0].asset_id, ts: seen.data.records[0].ts, power_kw: seen.data.records[0].power_kw, soc_pct: seen.data.records[0].soc_pct },
      { asset_id: 'bat-1', ts, power_kw: 3.5, soc_pct: 81 },
    );
    assert.equal('raw' in seen.data.records[0], false, 'the raw record is not streamed');
    // The batch was ingested through the first instance; the second one's subscriber has it from the bus.
    await onSecond.next('telemetry on the second instance', (e) => e.event === 'telemetry' && e.data.records[0].ts === ts);

    // The other organisation ingests after; its subscriber sees its own batch and never the first one.
    await ok(svc, other, 'POST', '/api/telemetry/ingest', [{ asset_id: 'x-1', ts, power_kw: 1 }]);
    await theirs.next('the other organisation’s telemetry', (e) => e.event === 'telemetry');
    assert.deepEqual(
      theirs.events.filter((e) => e.event === 'telemetry').map((e) => e.data.records[0].asset_id),
      ['x-1'],
    );

    // Alerts: evaluation raises them; the relay job puts them on the bus.
    const ev = await ok(svc, admin, 'POST', '/api/hardware/ems/alerts/evaluate');
    assert.ok(ev.raised.length > 0);
    await svc.runDue();
    const alert = await mine.next('an alert', (e) => e.event === 'alert');
    assert.equal(alert.data.transition, 'raised');
    assert.ok(
      ev.raised.some((a: { id: string }) => a.id === alert.data.alert.id),
      'a raised alert of this organisation',
    );
    await onSecond.next('an alert on the second instance', (e) => e.event === 'alert');
    // Resolution is a transition too.
    const target = ev.raised[0];
    await ok(svc, admin, 'POST', `/api/hardware/admin/alerts-history/${target.id}/resolve`, { reason: 'checked on site' });
    await svc.runDue();
    await mine.next('the resolution', (e) => e.event === 'alert' && e.data.transition === 'resolved' && e.data.alert.id === target.id);
    // Another later message for the other organisation shows none of these reached it.
    await ok(svc, other, 'POST', '/api/telemetry/ingest', [{ asset_id: 'x-1', ts: new Date(Date.parse(ts) - 60_000).toISOString(), power_kw: 2 }]);
    await theirs.next('the other organisation’s second batch', (e) => e.event === 'telemetry' && e.data.records[0].power_kw === 2);
    assert.equal(theirs.events.filter((e) => e.event === 'alert').length, 0);
  } finally {
    await Promise.all([mine.close(), onSecond.close(), theirs.close()]);
  }
});

test('the console is served at / with a content security policy naming this origin only, and the API keeps its 404', async () => {
  const res = await fetch(`${base}/`);
  assert.equal(res.status, 200);
  const html = await res.text();
  assert.match(html, /<div id="app"><\/div>/);
  const csp = res.headers.get('content-security-policy') ?? '';
  assert.match(csp, /default-src 'self'/);
  assert.match(csp, /connect-src 'self'/);
  assert.doesNotMatch(html, /https?:\/\//, 'no address of another host in the page');
  const script = /src="(\/assets\/[^"]+\.js)"/.exec(html)![1];
  const js = await fetch(`${base}${script}`);
  assert.equal(js.status, 200);
  assert.match(js.headers.get('cache-control') ?? '', /immutable/);
  const missing = await svc.request({ method: 'GET', url: '/no-such-page' });
  assertRefused(missing, 404, 'Not Found');
});

// ---------------------------------------------------------------- in the browser

const noBrowser = !existsSync(CHROMIUM) && `needs ${CHROMIUM} (apt-get install chromium chromium-driver; .ci/run installs it)`;
const shots = process.env.CONSOLE_SCREENSHOTS;

test('in Chromium: sign in, a chart from ingested data, live telemetry, acknowledge an alert, issue and revoke an API key, sign out; axe finds nothing serious on any screen', {
  skip: noBrowser,
  // A bound on a hang, not on speed: CI runs two suites side by side on two cores.
  timeout: 600_000,
}, async (t) => {
  const { chromium } = await import('playwright-core');
  const axeSource = readFileSync(join(import.meta.dirname, '../../node_modules/axe-core/axe.min.js'), 'utf8');
  const profile = mkdtempSync(join(tmpdir(), 'console-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: { width: 1280, height: 900 },
  });
  const page = context.pages()[0] ?? (await context.newPage());
  page.setDefaultTimeout(20_000);
  const failures: string[] = [];
  page.on('pageerror', (err) => failures.push(`page error: ${err.message}`));
  // A refused request is logged by Chromium as a failed resource; the screens answer those in words.
  page.on('console', (m) => m.type() === 'error' && !m.text().startsWith('Failed to load resource') && failures.push(`console error: ${m.text()}`));
  const foreign: string[] = [];
  page.on('request', (r) => !r.url().startsWith(base) && foreign.push(r.url()));
  let loginBody: any = null;

  let broken = false;
  async function step(name: string, fn: () => Promise<void>) {
    // Each step starts where the one before it left the page: after a failure the rest are skipped.
    await t.test(name, { skip: broken && 'an earlier step failed' }, async () => {
      try {
        await fn();
      } catch (err) {
        broken = true;
        const dir = join(tmpdir(), 'console-failures');
        mkdirSync(dir, { recursive: true });
        const file = join(dir, `${name.replace(/[^a-z0-9]+/gi, '-')}.png`);
        await page.screenshot({ path: file, fullPage: true }).catch(() => undefined);
        console.log(`screenshot of the failure: ${file}`);
        throw err;
      }
    });
  }
  async function axe(screen: string) {
    await page.evaluate(axeSource);
    const result: any = await page.evaluate(() => (globalThis as any).axe.run(document, { resultTypes: ['violations'] }));
    const bad = result.violations.filter((v: any) => v.impact === 'serious' || v.impact === 'critical');
    assert.deepEqual(
      bad.map((v: any) => `${v.id}: ${v.help} (${v.nodes.map((n: any) => n.target.join(' ')).join(', ')})`),
      [],
      `axe on ${screen}`,
    );
  }
  async function shot(name: string) {
    if (shots) {
      mkdirSync(shots, { recursive: true });
      await page.screenshot({ path: join(shots, `${name}.png`), fullPage: true });
    }
  }

  try {
    await step('sign in: a wrong password is answered in words with the request id, then signing in opens the sites', async () => {
      await page.goto(`${base}/`);
      await page.getByRole('heading', { name: 'Sign in' }).waitFor();
      await axe('sign in');
      await page.getByLabel('Email').fill(EMAIL);
      await page.getByLabel('Password').fill('wrong password');
      await page.getByRole('button', { name: 'Sign in' }).click();
      const alert = page.getByRole('alert');
      await alert.getByText('Invalid email or password').waitFor();
      assert.match(await alert.innerText(), /Request id: console-[0-9a-f-]{36}/);
      await shot('sign-in');
      await page.getByLabel('Password').fill(PASSWORD);
      const [login] = await Promise.all([
        page.waitForResponse((r) => r.url().endsWith('/api/auth/login') && r.status() === 200),
        page.getByRole('button', { name: 'Sign in' }).click(),
      ]);
      loginBody = await login.json();
      await page.getByRole('heading', { name: 'Sites' }).waitFor();
      assert.equal(loginBody?.organisation_id, ORG);
      const stored = await page.evaluate(() => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }) + document.cookie);
      // The console signs in with the refresh cookie (decision 0365): no refresh token in the body, the
      // access token in memory only, the refresh token in an HttpOnly cookie no script reads.
      assert.equal(loginBody.refresh_token, '', 'the refresh token travels in the HttpOnly cookie, not the body');
      assert.equal(stored.includes(loginBody.access_token), false, 'no token in storage a script can read');
      const cookie = (await context.cookies()).find((c) => c.name === '__Secure-ep_refresh');
      assert.ok(cookie && cookie.httpOnly && cookie.secure && cookie.sameSite === 'Strict' && cookie.path === '/api/auth', 'the refresh cookie, HttpOnly');
      assert.equal(stored.includes(cookie.value), false, 'the refresh token is not readable by script');
    });

    await step('sites: the asset tree, a history chart drawn from the ingested data, and live telemetry without reloading', async () => {
      await page.getByRole('button', { name: /^S1/ }).click();
      await page.getByRole('heading', { name: 'Assets at S1' }).waitFor();
      await page.getByRole('button', { name: /Battery/ }).click();
      await page.getByRole('heading', { name: 'Battery: history' }).waitFor();
      await page.getByRole('button', { name: '24 hours' }).click();
      const chart = page.locator('section', { has: page.getByRole('heading', { name: 'Battery: history' }) }).locator('.chart [role=img]');
      await chart.waitFor();
      // 24 hourly buckets of the seeded half-hourly records (the service's clock is at the last one).
      assert.ok(Number(await chart.getAttribute('data-points')) >= 23, 'the chart has the seeded buckets');
      assert.match(
        (await chart.getAttribute('aria-label')) ?? '',
        /^Charge, Discharge, State of charge per 1 hour\. \d+ points; .*State of charge \(%\): min 80 %, max 8\d %/,
      );
      assert.equal((await page.locator('.chart canvas').count()) >= 1, true, 'uPlot drew on a canvas');
      await page.getByText('● Live').waitFor();
      const ts = clockOf(svc).now().toISOString();
      await ok(svc, admin, 'POST', '/api/telemetry/ingest', [{ asset_id: 'bat-1', ts, power_kw: 4.25, soc_pct: 82 }]);
      await page.getByText(/4\.25 kW at .* \(live\)/).waitFor();
      for (const r of ['Last hour', '30 days', '12 weeks', '12 months']) {
        await page.getByRole('button', { name: r }).click();
        await page.locator(`.tabs button[aria-pressed=true]`, { hasText: r }).waitFor();
      }
      await page.getByRole('button', { name: '24 hours' }).click();
      await page.locator('.chart [role=img]').first().waitFor();
      await axe('sites');
      await shot('sites');
    });

    await step('energy: the half-hourly ledger of the site as a chart with units', async () => {
      // The ledger folds stored telemetry in on a debounced background job (as test/energy does).
      clockOf(svc).advance(31_000);
      await svc.runDue();
      await page.getByRole('link', { name: 'Energy' }).click();
      await page.getByRole('heading', { name: 'Energy for a day' }).waitFor();
      await page.getByLabel('Site').selectOption('home');
      await page.getByLabel('UK day').fill('2026-11-23');
      // 1.5 kW for six hours is 9 kWh imported; 2 kW of PV for six hours is 12 kWh generated.
      await page.getByText(/Day totals: import 9 kWh · export 3 kWh · generation 12 kWh/).waitFor();
      await page.locator('figcaption', { hasText: 'Half-hourly energy at home on 23/11/2026' }).waitFor();
      await axe('energy');
      await shot('energy');
    });

    await step('alerts: ranked by pound impact; acknowledging one is recorded by the service', async () => {
      await page.getByRole('link', { name: 'Alerts' }).click();
      await page.getByRole('heading', { name: 'Alerts by pound impact' }).waitFor();
      await page.getByRole('button', { name: 'Evaluate now' }).click();
      const first = page.locator('ol.alerts > li').first();
      await first.waitFor();
      const impacts = await page.locator('ol.alerts .impact').allInnerTexts();
      const values = impacts.map((s) => Number(s.replace(/[£,]|a day/g, '')));
      assert.deepEqual(
        values,
        [...values].sort((a, b) => b - a),
        'highest impact first',
      );
      const listed = json(await call(svc, admin, 'GET', '/api/hardware/ems/alerts')).alerts;
      const top = listed.find((a: any) => !a.acknowledged_at);
      assert.ok(top);
      await page.locator('ol.alerts > li', { hasText: top.title }).getByRole('button', { name: 'Acknowledge' }).click();
      await page.getByText(`Acknowledged “${top.title}”.`).waitFor();
      const after = json(await call(svc, admin, 'GET', '/api/hardware/ems/alerts')).alerts.find((a: any) => a.id === top.id);
      assert.ok(after.acknowledged_at, 'the service recorded the acknowledgement');
      await page.locator('ol.alerts > li', { hasText: top.title }).getByRole('button', { name: 'Acknowledged' }).waitFor();
      await axe('alerts');
      await shot('alerts');
    });

    await step('developer settings: issue an API key (secret shown once), then revoke it', async () => {
      await page.getByRole('link', { name: 'Developer settings' }).click();
      await page.getByRole('heading', { name: 'API keys' }).waitFor();
      await page.getByLabel('Name', { exact: true }).fill('Console test key');
      await page.getByRole('checkbox', { name: 'telemetry:read' }).check();
      await page.getByRole('button', { name: 'Issue key' }).click();
      const secret = await page.locator('[data-secret]').innerText();
      assert.match(secret, /_live_/);
      const keys = json(await call(svc, admin, 'GET', '/api/devtools/apikeys')).api_keys;
      const made = keys.find((k: any) => k.name === 'Console test key');
      assert.equal(made.status, 'active');
      // The key works until it is revoked.
      const before = await svc.request({ method: 'GET', url: '/api/devtools/partner/v1/telemetry/latest', headers: { authorization: `Bearer ${secret}` } });
      assert.equal(before.statusCode, 200, before.body);
      await shot('developer');
      await axe('developer');
      await page.getByRole('button', { name: 'Done' }).click();
      assert.equal(await page.locator('[data-secret]').count(), 0, 'the secret is gone once dismissed');
      await page.getByRole('button', { name: 'Revoke Console test key' }).click();
      await page.getByText('Revoked “Console test key”.').waitFor();
      const revoked = json(await call(svc, admin, 'GET', '/api/devtools/apikeys')).api_keys.find((k: any) => k.id === made.id);
      assert.equal(revoked.status, 'revoked');
      const afterRevoke = await svc.request({
        method: 'GET',
        url: '/api/devtools/partner/v1/telemetry/latest',
        headers: { authorization: `Bearer ${secret}` },
      });
      assertRefused(afterRevoke, 401, 'Invalid or expired API key');
    });

    await step('settlement receipts: a receipt with its energy, verified on request', async () => {
      await page.getByRole('link', { name: 'Settlement receipts' }).click();
      await page.getByRole('heading', { name: 'Settlement receipts' }).waitFor();
      await page.getByRole('cell', { name: 'turn_down 1.25 kWh' }).waitFor();
      await page.getByRole('button', { name: 'Verify receipt 1' }).click();
      await page.getByText('✓ Signature and chain valid').waitFor();
      await axe('settlement');
      await shot('settlement');
    });

    await step('phone width: the navigation and the sites screen fit without sideways scrolling', async () => {
      await page.setViewportSize({ width: 390, height: 844 });
      await page.getByRole('link', { name: 'Sites and assets' }).click();
      await page.getByRole('heading', { name: 'Sites' }).waitFor();
      const wide = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert.ok(wide <= 1, `the page is ${wide}px wider than the phone`);
      // The skip link comes before the header: from the brand, Shift+Tab reaches it; Enter moves to the content.
      await page.locator('.brand').click();
      await page.keyboard.press('Shift+Tab');
      assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Skip to content');
      await page.keyboard.press('Enter');
      assert.equal(await page.evaluate(() => document.activeElement?.id), 'main');
      await page.keyboard.press('Tab');
      assert.equal(await page.evaluate(() => document.activeElement?.closest('ul')?.getAttribute('aria-label')), 'Sites', 'the next Tab is the first site');
      await shot('phone');
      await page.setViewportSize({ width: 1280, height: 900 });
    });

    await step('sign out: back to sign in, and the session’s refresh token is revoked by the service', async () => {
      const refresh = (await context.cookies()).find((c) => c.name === '__Secure-ep_refresh')?.value;
      assert.ok(refresh, 'the session holds its refresh cookie until sign-out');
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByRole('heading', { name: 'Sign in' }).waitFor();
      assert.equal(
        (await context.cookies()).find((c) => c.name === '__Secure-ep_refresh'),
        undefined,
        'sign-out clears the cookie',
      );
      const res = await svc.request({ method: 'POST', url: '/api/auth/token/refresh', payload: { refresh_token: refresh } });
      assertRefused(res, 401, 'Invalid or expired refresh token');
      assert.deepEqual(foreign, [], 'no request left this service');
      assert.deepEqual(failures, [], 'no script errors in the page');
    });
  } finally {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
  }
});
