// A new user's first look at the Energy screen (issue 41, item 6; decision 0486), in Chromium
// against a running service whose market providers cannot be reached (loopback fakes answering
// 503, as on a machine without internet): the demo organisation `npm start` seeds, signed in with
// its seeded admin, sees the day's prices and the carbon intensity forecast from the sample week
// shipped with the service, each chart badged `simulated` with the method in words, and no provider
// is asked; the screen opens on a site with energy data, not on the alphabetically first site.
// axe-core finds no serious or critical issue. Skipped, saying why, when /usr/bin/chromium is absent.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import type { TestService } from '../helpers/service.ts';
import { ok, seedScenario, startAt, tokenFor } from '../ems-alerts/helpers.ts';
import { CONSOLE_DIST } from '../../src/platform/console-ui.ts';
import { createProvisioning } from '../../src/cli/provisioning.ts';
import { axe, noBrowser, openConsole, type PageGlobals, seen, shot, signIn, stepper, until } from './browser.ts';
import { startFakeCarbon, startFakeTariff, type FakeCarbon, type FakeTariff } from '../helpers/fake-market.ts';

let svc: TestService;
let base: string;
let demo: { organisation_id: string; email: string; password: string };
let tariff: FakeTariff;
let carbonApi: FakeCarbon;

before(async () => {
  if (!existsSync(`${CONSOLE_DIST}index.html`)) await (await import('../../console/build.ts')).buildConsole();
  tariff = await startFakeTariff();
  carbonApi = await startFakeCarbon(() => svc.clock.now().getTime());
  tariff.mode = 'down';
  carbonApi.mode = 'down';
  svc = await startAt({
    env: { TARIFF_API_BASE_URL: tariff.url, CARBON_API_BASE_URL: carbonApi.url, UPSTREAM_TIMEOUT_MS: '2000', UPSTREAM_RETRY_BASE_MS: '1' },
  });
  demo = await createProvisioning(svc.deps.db).seedDemo();
  const token = await tokenFor(svc, demo.organisation_id);
  // Sites S1 and S2 with a day of telemetry (the alerts scenario), and "A-yard" first in the
  // alphabet, with an inverter registered but nothing measured yet.
  await seedScenario(svc, token);
  await ok(
    svc,
    token,
    'POST',
    '/api/twin/registry/assets',
    { asset_id: 'yard-pv', site_id: 'A-yard', type: 'inverter', name: 'Yard PV', asset_class: 'inverter' },
    201,
  );
  await svc.runDue();
  const sites = (await ok(svc, token, 'GET', '/api/telemetry/sites')).sites as { site_id: string; assets: number; half_hours_with_data: number }[];
  assert.equal(sites[0].site_id, 'A-yard', 'the yard is the first site listed');
  assert.ok(sites[0].assets > 0 && sites[0].half_hours_with_data === 0, 'the yard has energy assets and no data');
  assert.ok(sites.find((s) => s.site_id === 'S1')!.half_hours_with_data > 0, 'S1 has measured half hours');
  base = await svc.app.listen({ port: 0, host: '127.0.0.1' });
});
after(async () => {
  await svc?.stop();
  await Promise.allSettled([tariff?.close(), carbonApi?.close()]);
});

test('in Chromium: the demo organisation’s Energy screen with the providers unreachable', { skip: noBrowser, timeout: 600_000 }, async (t) => {
  const browser = await openConsole();
  const page = browser.page;
  const step = stepper(t, page);
  try {
    await step('the Energy screen opens on a site with energy data, not the first in the alphabet', async () => {
      await signIn(page, base, demo.email, demo.password, '#/energy?day=2026-11-24');
      await page.getByRole('heading', { name: 'Tariff prices and carbon intensity' }).waitFor();
      await until(page, () => (globalThis as unknown as PageGlobals).document.getElementById('energy-site')?.value === 'S1');
      await page.getByText(/^Day totals: import /).waitFor();
      assert.deepEqual(await page.locator('#energy-site option').allInnerTexts(), ['A-yard', 'S1', 'S2']);
    });

    await step('prices and carbon intensity from the sample, badged simulated with the method in words, no provider asked', async () => {
      const market = page.locator('section', { has: page.getByRole('heading', { name: 'Tariff prices and carbon intensity' }) });
      const prices = market.locator('figure.chart', { hasText: 'Import unit rate, VAT inclusive' });
      await prices.waitFor();
      // The service's today (24 November 2026, UK) whole: 48 half-hour prices, in the chart's words for a screen reader.
      await prices.locator('[aria-label*="48 half-hour prices."]').waitFor();
      assert.equal(await prices.locator('[role="img"]').getAttribute('data-points'), '48');
      const bases = (await market.locator('.basis').allInnerTexts()).map((s) => s.replace(/\s+/g, ' '));
      assert.equal(bases.length, 2, `one basis line per chart: ${bases.join(' | ')}`);
      assert.match(
        bases[0],
        /^Data basis: simulated Demo organisation: a sample week of Agile-shaped unit rates shipped with the service, replayed onto the days asked for by weekday and UK clock time; not the tariff provider's prices for these days\.$/,
      );
      assert.match(
        bases[1],
        /^Data basis: simulated Demo organisation: a sample week of GB carbon intensity shipped with the service, replayed onto the hours asked for/,
      );
      assert.equal(await market.locator('.badge.basis-simulated').count(), 2);
      await market.locator('[aria-label*="48 half hours."]').first().waitFor();
      // Nothing says a provider could not be reached: there was nothing to reach.
      assert.equal(await market.locator('.error, .note').count(), 0, await seen(page, '#main'));
      assert.equal(tariff.server.requests.length, 0, 'the tariff provider was not asked');
      assert.equal(carbonApi.server.requests.length, 0, 'the carbon intensity provider was not asked');
      await axe(page, 'energy (demo organisation, sample market data)');
      await shot(page, 'energy-demo-sample');
    });

    await step('another day, a clock-change day, is whole too', async () => {
      await page.getByLabel('UK day').fill('25/10/2026');
      const market = page.locator('section', { has: page.getByRole('heading', { name: 'Tariff prices and carbon intensity' }) });
      await market.locator('[aria-label*="50 half-hour prices."]').first().waitFor();
      assert.match(new URL(page.url()).hash, /day=2026-10-25/);
      assert.equal(tariff.server.requests.length, 0, 'the tariff provider was not asked');
    });
    assert.deepEqual(browser.failures, []);
  } finally {
    await browser.close();
  }
});
