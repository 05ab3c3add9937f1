// A console session survives a reload (issue 41, item 2; decision 0365), in Chromium against a
// service on http://127.0.0.1: the refresh token is the service's HttpOnly cookie (Chromium keeps a
// `Secure` cookie from 127.0.0.1, a secure context), so a reload keeps the session and the selection
// in the address, while no script can read a token (no cookie in document.cookie, nothing in
// storage); signing out clears the cookie, and a reload then shows the sign-in form. Skipped,
// saying why, when /usr/bin/chromium is absent.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import type { TestService } from '../helpers/service.ts';
import { clockOf, ok, startAt, tokenFor } from '../ems-alerts/helpers.ts';
import { CONSOLE_DIST } from '../../src/platform/console-ui.ts';
import { axe, noBrowser, openConsole, shot, signIn } from './browser.ts';

const ORG = 'console-session';
const EMAIL = 'reloader@console.test';
const PASSWORD = 'correct-horse-battery-staple';

let svc: TestService;
let base: string;

before(async () => {
  if (!existsSync(`${CONSOLE_DIST}index.html`)) await (await import('../../console/build.ts')).buildConsole();
  svc = await startAt();
  await svc.createOrg(ORG);
  await svc.createUser(ORG, EMAIL, 'VIEWER', PASSWORD);
  const admin = await tokenFor(svc, ORG);
  for (const a of [
    { asset_id: 'bat-1', site_id: 'S1', type: 'battery', name: 'Battery', asset_class: 'battery', details: {} },
    { asset_id: 'pv-1', site_id: 'S1', type: 'solar', name: 'Roof PV', asset_class: 'inverter', details: {} },
  ])
    await ok(svc, admin, 'POST', '/api/twin/registry/assets', a, 201);
  await ok(svc, admin, 'POST', '/api/telemetry/ingest', [{ asset_id: 'pv-1', ts: clockOf(svc).now().toISOString(), power_kw: -2 }]);
  base = await svc.app.listen({ port: 0, host: '127.0.0.1' });
});
after(async () => {
  await svc?.stop();
});

/** What a script in the page can read: document.cookie and both storages. */
const scriptVisible = `JSON.stringify({ cookie: document.cookie, local: Object.keys(localStorage), session: Object.keys(sessionStorage) })`;

test('in Chromium: a reload keeps the session and the selection; no script sees a token; sign-out then reload shows sign-in', { skip: noBrowser }, async () => {
  const c = await openConsole();
  const { page, context } = c;
  const hash = () => new URL(page.url()).hash;
  try {
    await signIn(page, base, EMAIL, PASSWORD, '#/sites?site=S1&asset=pv-1&range=daily');
    await page.getByRole('heading', { name: 'Roof PV: history' }).waitFor();

    // The cookie as the browser holds it: HttpOnly, Secure, Strict, on /api/auth only.
    const cookies = await context.cookies(`${base}/api/auth/token/refresh`);
    const refresh = cookies.find((k) => k.name === '__Secure-ep_refresh');
    assert.ok(refresh, `the refresh cookie is kept on ${base} (127.0.0.1 is a secure context)`);
    assert.equal(refresh.httpOnly, true);
    assert.equal(refresh.secure, true);
    assert.equal(refresh.sameSite, 'Strict');
    assert.equal(refresh.path, '/api/auth');
    assert.deepEqual(JSON.parse(await page.evaluate(scriptVisible)), { cookie: '', local: [], session: [] });

    // Reload: still signed in, on the same selection, without the sign-in form.
    let refreshes = 0;
    page.on('request', (r) => r.url().endsWith('/api/auth/token/refresh') && refreshes++);
    await page.reload();
    await page.getByRole('heading', { name: 'Roof PV: history' }).waitFor();
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    await page.locator('button[aria-pressed=true]', { hasText: '30 days' }).waitFor();
    assert.equal(hash(), '#/sites?site=S1&asset=pv-1&range=daily');
    assert.match(await page.locator('header .who').innerText(), new RegExp(`${EMAIL.replace('.', '\\.')} · ${ORG} · VIEWER`));
    assert.equal(refreshes, 1, 'one refresh restores the session');
    const rotated = (await context.cookies(`${base}/api/auth/token/refresh`)).find((k) => k.name === '__Secure-ep_refresh');
    assert.ok(rotated && rotated.value !== refresh.value, 'the refresh rotated the cookie');
    assert.equal(await page.getByLabel('Email').count(), 0);
    assert.deepEqual(JSON.parse(await page.evaluate(scriptVisible)), { cookie: '', local: [], session: [] });

    // A second reload works from the rotated cookie (the first one is used up).
    await page.reload();
    await page.getByRole('heading', { name: 'Roof PV: history' }).waitFor();
    await axe(page, 'sites after a reload');
    await shot(page, 'session-reloaded');

    // Sign-out revokes the sign-in and clears the cookie: a reload shows the sign-in form.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('Email').waitFor();
    assert.equal((await context.cookies(`${base}/api/auth/token/refresh`)).filter((k) => k.name === '__Secure-ep_refresh').length, 0, 'the cookie is gone');
    await page.reload();
    await page.getByLabel('Email').waitFor();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await axe(page, 'sign-in after sign-out');
    assert.deepEqual(c.failures, [], 'no script errors in the page');
  } finally {
    await c.close();
  }
});
