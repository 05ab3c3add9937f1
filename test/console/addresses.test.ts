// The console's address holds its screen and selection (issue 41, item 2, the part without the
// session cookie): a link opened before signing in lands on that selection after sign-in, every
// choice is a history entry that Back undoes and Forward redoes, and the Energy screen reads its
// site and day from the address. Skipped, saying why, when /usr/bin/chromium is absent.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import type { TestService } from '../helpers/service.ts';
import { clockOf, ok, startAt, tokenFor } from '../ems-alerts/helpers.ts';
import { CONSOLE_DIST } from '../../src/platform/console-ui.ts';
import { noBrowser, openConsole, type PageGlobals, signIn, until } from './browser.ts';

const ORG = 'console-addresses';

/** The UK calendar day `n` days before today on this machine's clock (the browser's), as ISO and as dd/mm/yyyy. */
function ukDayBefore(n: number): { iso: string; uk: string } {
  const iso = new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/London', year: 'numeric', month: '2-digit', day: '2-digit' }).format(
    new Date(Date.now() - n * 86_400_000),
  );
  const [y, m, d] = iso.split('-');
  return { iso, uk: `${d}/${m}/${y}` };
}
/** The calendar day after an ISO day. */
function nextDay(iso: string): { iso: string; uk: string } {
  const next = new Date(Date.parse(`${iso}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
  const [y, m, d] = next.split('-');
  return { iso: next, uk: `${d}/${m}/${y}` };
}
const EMAIL = 'linker@console.test';
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
    { asset_id: 'meter-2', site_id: 'S2', type: 'meter', name: 'Meter', asset_class: 'site_meter', details: {} },
  ])
    await ok(svc, admin, 'POST', '/api/twin/registry/assets', a, 201);
  const ts = clockOf(svc).now().toISOString();
  await ok(svc, admin, 'POST', '/api/telemetry/ingest', [{ asset_id: 'bat-1', ts, power_kw: 1, soc_pct: 60 }]);
  base = await svc.app.listen({ port: 0, host: '127.0.0.1' });
});
after(async () => {
  await svc?.stop();
});

test('in Chromium: a deep link survives sign-in, each selection is in the address, Back and Forward move through them', { skip: noBrowser }, async () => {
  const c = await openConsole();
  const { page } = c;
  const hash = () => new URL(page.url()).hash;
  const pressed = (name: string) => page.locator('button[aria-pressed=true]', { hasText: name }).waitFor();
  try {
    // A link to the battery's last hour, opened signed out: after sign-in, that is what shows.
    await signIn(page, base, EMAIL, PASSWORD, '#/sites?site=S1&asset=bat-1&range=live');
    await page.getByRole('heading', { name: 'Battery: history' }).waitFor();
    await pressed('Last hour');
    assert.equal(hash(), '#/sites?site=S1&asset=bat-1&range=live');
    // The battery's one sample: shown on an axis a bucket either side of it (5 minutes each way),
    // not on one decades wide.
    const chart = page.locator('.chart [data-points="1"]');
    await chart.waitFor();
    assert.equal(await chart.getAttribute('data-x-span'), '600');

    // Choices go into the address.
    await page.getByRole('button', { name: /Roof PV/ }).click();
    await page.getByRole('heading', { name: 'Roof PV: history' }).waitFor();
    assert.equal(hash(), '#/sites?site=S1&asset=pv-1&range=live');
    await page.getByRole('button', { name: '30 days' }).click();
    await pressed('30 days');
    assert.equal(hash(), '#/sites?site=S1&asset=pv-1&range=daily');
    await page.getByRole('button', { name: /^S2/ }).click();
    await page.getByRole('heading', { name: 'Assets at S2' }).waitFor();
    assert.equal(hash(), '#/sites?site=S2&range=daily', 'another site starts on its first asset');

    // Back undoes them one by one; Forward redoes.
    await page.goBack();
    await page.getByRole('heading', { name: 'Roof PV: history' }).waitFor();
    await pressed('30 days');
    await page.goBack();
    await pressed('Last hour');
    await page.goBack();
    await page.getByRole('heading', { name: 'Battery: history' }).waitFor();
    await page.goForward();
    await page.getByRole('heading', { name: 'Roof PV: history' }).waitFor();

    // The Energy screen reads its site and day from the address, and writes them there.
    await page.getByRole('link', { name: 'Energy' }).click();
    await page.getByRole('heading', { name: 'Energy for a day' }).waitFor();
    // The day is written and read as in the UK (dd/mm/yyyy), not as the browser's date input shows it.
    const day = page.getByLabel('UK day');
    // Days a week before the browser's UK today, so that the default (today) is neither of them
    // whatever the date the suite runs on.
    const { iso: d1, uk: d1uk } = ukDayBefore(7);
    const { iso: d2, uk: d2uk } = nextDay(d1);
    await day.fill(d1uk);
    await until(page, (want) => (globalThis as unknown as PageGlobals).location.hash.includes(want), `day=${d1}`);
    assert.match(hash(), new RegExp(`^#/energy\\?(.*&)?day=${d1}`));
    await until(page, (want) => (globalThis as unknown as PageGlobals).document.getElementById('energy-day')?.value === want, d1uk);
    await page.getByRole('heading', { name: 'Energy for a day' }).waitFor();
    // Not a day: said so, and the address keeps the last good one.
    await day.fill('31/02/2026');
    await day.press('Enter');
    await page.getByText('Not a day: write it as dd/mm/yyyy, for example 24/11/2026.').waitFor();
    assert.match(hash(), new RegExp(`day=${d1}`));
    await page.getByRole('button', { name: 'Day after' }).click();
    await until(page, (want) => (globalThis as unknown as PageGlobals).location.hash.includes(want), `day=${d2}`);
    await until(page, (want) => (globalThis as unknown as PageGlobals).document.getElementById('energy-day')?.value === want, d2uk);
    await page.goBack();
    await until(page, (want) => (globalThis as unknown as PageGlobals).document.getElementById('energy-day')?.value === want, d1uk);
    await page.goBack();
    await until(page, () => !(globalThis as unknown as PageGlobals).location.hash.includes('day='));
    // The screen renders the address's change after the hash moves: wait for the field to show it
    // (CI once read the field in between and found the day before still there).
    await until(page, (want) => (globalThis as unknown as PageGlobals).document.getElementById('energy-day')?.value === want, ukDayBefore(0).uk);
    assert.notEqual(await day.inputValue(), d1uk);
    assert.equal(await day.inputValue(), ukDayBefore(0).uk, 'without a day in the address, the UK today is shown');
    assert.deepEqual(c.failures, [], 'no script errors in the page');
  } finally {
    await c.close();
  }
});
