// The operators' daily journeys in the console (issue 41, item 3), in Chromium against a running
// service, each checked by what the operator reads on the screen and by what the service then
// holds, with axe-core on each screen:
// - alerts ranked by £ a day, acknowledged and assigned in one console and shown in a second one
//   (another person's session) from the live stream, without reloading it;
// - the charging hub: a charger over OCPP 1.6J (a real WebSocket) shown online with each
//   connector's status, the open session on its connector and its power from the live stream,
//   and the site's sessions with their costs as the schedule prices them;
// - field work orders: none yet, one created from an alert, its SLA clocks, assigned to me,
//   started and completed, the clocks stopping as the service says;
// - exports: one collection exported, its progress bar following the job, then downloaded as CSV
//   (the manifest's columns as the header) and as JSON Lines (one row a line, every row);
// - energy: the ledger rebuilt from the stored telemetry with its progress by day;
// - sites: the topology findings the service reports, and a device reporting for a site
//   without being registered, registered with one button;
// - energy's market panels with the providers down (loopback fakes): no carbon figures cached yet
//   in words with the request id, then the tariff's last prices served stale and said so;
// - dark mode by the system setting, the Theme switch overriding it and surviving a reload, axe
//   clean in both;
// - developer settings: a webhook registered, a test event sent, its delivery in the log;
// - studies: one from a type's sample inputs, a run with its progress bar, its figures, report
//   and proposal pack downloaded.
// Skipped, saying why, when /usr/bin/chromium is absent. CONSOLE_SCREENSHOTS=<dir> saves each
// screen at 1400 px and 390 px.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { json, type TestService } from '../helpers/service.ts';
import { call, clockOf, ok, seedScenario, startAt, tokenFor } from '../ems-alerts/helpers.ts';
import { charger, siteWithCharger, type Charger } from '../hub/helpers.ts';
import { CONSOLE_DIST } from '../../src/platform/console-ui.ts';
import { axe, noBrowser, openConsole, type PageGlobals, seen, shot, signIn, stepper, until, type Console } from './browser.ts';
import { startFakeCarbon, startFakeTariff, type FakeCarbon, type FakeTariff } from '../helpers/fake-market.ts';
import { startReceiver, type Receiver } from '../devtools/helpers.ts';

const ORG = 'journeys-org';
const PASSWORD = 'correct-horse-battery-staple';
const ANNA = 'anna@journeys.test';
const BEN = 'ben@journeys.test';

let svc: TestService;
let base: string;
let admin: string;
let ben: { id: string };
let tariff: FakeTariff;
let carbonApi: FakeCarbon;
let receiver: Receiver;

before(async () => {
  if (!existsSync(`${CONSOLE_DIST}index.html`)) await (await import('../../console/build.ts')).buildConsole();
  // The market providers are loopback fakes (no cache lifetime, so a provider that is down has the
  // service serve the prices it last fetched, marked stale; the carbon intensity one is down
  // throughout); the webhook receiver answers 200.
  tariff = await startFakeTariff();
  carbonApi = await startFakeCarbon(() => svc.clock.now().getTime());
  carbonApi.mode = 'down'; // from the start: nothing of it is ever cached
  receiver = await startReceiver([200]);
  svc = await startAt({
    env: {
      TARIFF_API_BASE_URL: tariff.url,
      CARBON_API_BASE_URL: carbonApi.url,
      TARIFF_CACHE_TTL_SECONDS: '0',
      TARIFF_UNPUBLISHED_TTL_SECONDS: '0',
      UPSTREAM_TIMEOUT_MS: '2000',
      UPSTREAM_RETRY_BASE_MS: '1',
    },
  });
  await svc.createOrg(ORG, ['field']);
  await svc.createUser(ORG, ANNA, 'ORG_ADMIN', PASSWORD);
  ben = await svc.createUser(ORG, BEN, 'ORG_ADMIN', PASSWORD);
  admin = await tokenFor(svc, ORG);
  await seedScenario(svc, admin);
  base = await svc.app.listen({ port: 0, host: '127.0.0.1' });
});
after(async () => {
  await svc?.stop();
  await Promise.allSettled([tariff?.close(), carbonApi?.close(), receiver?.close()]);
});

const H = '/api/csms/api/hub';
/**
 * The service's clock a minute on: an operator does not walk every screen within one minute of
 * the service's time, and the per-user rate limit (100 a minute, on the service's clock) counts
 * every request of the walk while the clock stands still.
 */
const nextMinute = () => clockOf(svc).advance(60_000);

// The walk takes about 50 s on an idle machine; CI runs two suites side by side on two cores, where
// it has taken over 130 s. Its timeout bounds a hang, not its speed.
test('in Chromium: the daily journeys, as an operator sees them', { skip: noBrowser, timeout: 600_000 }, async (t) => {
  const anna = await openConsole();
  const chargers: Charger[] = [];
  let benConsole: Console | null = null;
  const page = anna.page;
  const step = stepper(t, page);
  try {
    await step(
      'alerts: empty before evaluation, then ranked by £ a day; an acknowledgement and an assignment in one console show in another without reloading',
      async () => {
        await signIn(page, base, ANNA, PASSWORD, '#/alerts');
        await page.getByRole('heading', { name: 'Alerts by pound impact' }).waitFor();
        await page.getByText('No open alerts.').waitFor();
        await page.getByRole('button', { name: 'Evaluate now' }).click();
        await page.getByText(/^Evaluated: 5 raised, 0 resolved\.$/).waitFor();
        // The seeded scenario's five alerts (test/ems-alerts/helpers.ts), highest impact first, total £10.16 a day.
        await page.locator('ol.alerts > li').nth(4).waitFor();
        assert.deepEqual(await page.locator('ol.alerts .impact').allInnerTexts(), ['£5.88 a day', '£2.10 a day', '£1.05 a day', '£0.98 a day', '£0.15 a day']);
        assert.match(await seen(page, '.toolbar'), /Open impact: £10\.16 a day/);

        benConsole = await openConsole();
        const other = benConsole.page;
        await signIn(other, base, BEN, PASSWORD, '#/alerts');
        const top = other.locator('ol.alerts > li').first();
        await top.getByText('not acknowledged').waitFor();
        await other.getByText('● Live').waitFor();
        // The second console is not reloaded from here on: a mark on its window must survive.
        await other.evaluate(() => ((globalThis as unknown as { journeyMark: number }).journeyMark = 41));

        await page.locator('ol.alerts > li').first().getByRole('button', { name: 'Acknowledge' }).click();
        await page.getByText(/^Acknowledged “.+”\.$/).waitFor();
        await svc.runDue(); // the live relay job
        await top.getByRole('button', { name: 'Acknowledged' }).waitFor();
        assert.match(await top.innerText(), /acknowledged \d/);

        // Anna assigns the top alert to Ben (by his user id); Ben's console says it is his.
        await page
          .getByLabel(/^Assign .+ to user id$/)
          .first()
          .fill(ben.id);
        await page.locator('ol.alerts > li').first().getByRole('button', { name: 'Assign' }).click();
        await page.getByText(/^Assigned “.+”\.$/).waitFor();
        await svc.runDue();
        await top.getByText('assigned to you').waitFor();
        assert.equal(await other.evaluate(() => (globalThis as unknown as { journeyMark?: number }).journeyMark), 41, 'Ben’s console was not reloaded');
        const listed = json(await call(svc, admin, 'GET', '/api/hardware/ems/alerts')).alerts[0];
        assert.equal(listed.assigned_to, ben.id);
        assert.ok(listed.acknowledged_at);
        await axe(other, 'alerts (second console)');
        await axe(page, 'alerts');
        await shot(other, 'alerts-live');
        assert.deepEqual(benConsole.failures, [], 'no script errors in the second console');
      },
    );

    await step('charging hub: a charger live over OCPP with its connectors, the session on one and its power; sessions with their costs', async () => {
      await ok(svc, admin, 'POST', `${H}/sites`, { site_id: 'annex', name: 'Annex car park' }, 201);
      // A site with a published schedule: 50 p/kWh, 1 p a minute, 30 p to connect, VAT 20 %.
      await ok(svc, admin, 'POST', `${H}/sites`, { site_id: 'depot', name: 'Depot hub', postcode: 'SW1A 1AA', capacity_kw: 44 }, 201);
      await ok(
        svc,
        admin,
        'POST',
        `${H}/sites/depot/price-schedules`,
        { energy_p_per_kwh: '50', time_p_per_minute: '1', connection_fee_p: '30', overstay_p_per_minute: '10', overstay_grace_minutes: 10, vat_percent: '20' },
        201,
      );
      await ok(svc, admin, 'POST', `${H}/sites/depot/price-schedules/1/publish`);
      const { password } = await siteWithCharger(
        svc,
        admin,
        { site_id: 'depot', name: 'Depot hub' },
        { charge_point_id: 'CP-A', max_power_kw: 22, connectors: 2 },
      );
      const cp = charger({ base: base.replace('http://', 'ws://'), orgId: ORG, id: 'CP-A', password, protocol: 'ocpp1.6' });
      chargers.push(cp);
      await cp.connect();
      await cp.call('BootNotification', { chargePointVendor: 'Acme', chargePointModel: 'Wallbox 22' });
      // A finished session on connector 1 (12:01-12:16 UTC, 3 kWh) under the schedule published at 12:00:
      // 150 p energy + 15 p time + 30 p connection = 195 p net, 39 p VAT, £2.34. An open one on connector 2 from 12:16.
      const at = (hhmm: string) => {
        clockOf(svc).set(`2026-11-24T${hhmm}:00.000Z`);
        return `2026-11-24T${hhmm}:00Z`;
      };
      const done = await cp.call('StartTransaction', { connectorId: 1, idTag: 'CARD-1', meterStart: 0, timestamp: at('12:01') });
      await cp.call('StopTransaction', { transactionId: done.transactionId, meterStop: 3000, timestamp: at('12:16'), reason: 'EVDisconnected' });
      await cp.call('StatusNotification', { connectorId: 1, errorCode: 'NoError', status: 'Available', timestamp: at('12:16') });
      const running = await cp.call('StartTransaction', { connectorId: 2, idTag: 'FLEET-7', meterStart: 1000, timestamp: at('12:16') });
      await cp.call('StatusNotification', { connectorId: 2, errorCode: 'NoError', status: 'Charging', timestamp: at('12:16') });

      await page.getByRole('link', { name: 'Charging hub' }).click();
      await page.getByRole('button', { name: /^Annex car park/ }).click();
      await page.getByText('No charge points registered at this site.').waitFor();
      await page.getByText('No charging sessions at this site yet.').waitFor();
      await page.getByRole('button', { name: /^Depot hub/ }).click();
      await page.getByRole('heading', { name: 'Chargers at Depot hub' }).waitFor();
      assert.match(new URL(page.url()).hash, /^#\/hub\?site=depot$/);
      const chargersTable = page.locator('table', { has: page.locator('caption', { hasText: 'Chargers at depot' }) });
      await chargersTable.getByText('Online').waitFor();
      assert.match(await chargersTable.innerText(), /CP-A\s+Acme Wallbox 22 · 22 kW/);
      assert.match(await chargersTable.innerText(), /1: Available \(AVAILABLE\)/);
      assert.match(await chargersTable.innerText(), /2: Charging \(CHARGING\)/);
      assert.match(await chargersTable.innerText(), /FLEET-7 · 0 kWh/);

      // Meter values on the open session (1.5 kWh in 5 minutes at 18 kW, within the charger's 22 kW): the
      // power shows from the live stream, the session's energy follows, without a reload.
      await page.getByText('● Live').waitFor();
      await cp.call('MeterValues', {
        connectorId: 2,
        transactionId: running.transactionId,
        meterValue: [
          {
            timestamp: at('12:21'),
            sampledValue: [
              { value: '2500', measurand: 'Energy.Active.Import.Register', unit: 'Wh' },
              { value: '18', measurand: 'Power.Active.Import', unit: 'kW' },
            ],
          },
        ],
      });
      await chargersTable.getByText(/18 kW at 12:21/).waitFor();
      await chargersTable.getByText(/FLEET-7 · 1\.5 kWh/).waitFor();

      const sessions = page.locator('table', { has: page.locator('caption', { hasText: 'Charging sessions at depot' }) });
      const finished = sessions.locator('tr', { hasText: 'CARD-1' });
      await finished.getByText('£2.34').waitFor();
      assert.match(await finished.innerText(), /3 kWh\s+stopped .* \(EVDisconnected\)\s+£2\.34\s+£1\.95 \+ VAT £0\.39/);
      const charging = sessions.locator('tr', { hasText: 'FLEET-7' });
      assert.match(await charging.innerText(), /charging/);
      await charging.getByText('so far').waitFor();
      const cost = await ok(
        svc,
        admin,
        'GET',
        `${H}/transactions/${(await ok(svc, admin, 'GET', `${H}/sites/depot/transactions`)).transactions.find((x: { id_tag: string }) => x.id_tag === 'FLEET-7').transaction_id}/cost`,
      );
      assert.match(
        await charging.innerText(),
        new RegExp(`£${cost.total_gbp.replace('.', '\\.')}`),
        'the open session’s cost so far, as the service works it out',
      );
      await axe(page, 'charging hub');
      await shot(page, 'hub');
    });

    await step('charging hub: a restart and an unlock sent to the charger with its answers listed; id tokens added, refused twice, blocked', async () => {
      const cp = chargers[0];
      assert.ok(cp, 'the charger of the step before');
      cp.handle('Reset', () => ({ status: 'Accepted' }));
      cp.handle('UnlockConnector', () => ({ status: 'Unlocked' }));
      const commands = page.locator('section', { has: page.getByRole('heading', { name: 'Commands to CP-A' }) });
      await commands.getByText('No commands sent to this charger yet.').waitFor();
      await commands.getByRole('radio', { name: 'Hard (at once)' }).check();
      await commands.getByRole('button', { name: 'Send restart' }).click();
      await commands.getByText('Sent: restart, accepted.').waitFor();
      await commands.getByLabel('Connector to unlock').selectOption('2');
      await commands.getByRole('button', { name: 'Send unlock' }).click();
      await commands.getByText('Sent: unlock connector, accepted.').waitFor();
      const sent = commands.locator('table', { has: page.locator('caption', { hasText: 'Commands sent to CP-A' }) });
      await sent.locator('tbody tr').nth(1).waitFor();
      // Both sent at the same instant of the service's clock: their order is the service's to choose.
      const rows = (await sent.locator('tbody tr').allInnerTexts()).map((r) => r.replace(/\s+/g, ' ')).sort();
      assert.match(rows[0], /restart type hard accepted Accepted answered /);
      assert.match(rows[1], /unlock connector connector id 2 accepted Unlocked answered /);
      const listed = (await ok(svc, admin, 'GET', `${H}/charge-points/CP-A/commands`)).commands;
      assert.deepEqual(listed.map((c: { action: string; status: string }) => `${c.action} ${c.status}`).sort(), [
        'reset accepted',
        'unlock-connector accepted',
      ]);

      const tokens = page.locator('section', { has: page.getByRole('heading', { name: 'Id tokens' }) });
      assert.equal((await ok(svc, admin, 'GET', `${H}/id-tokens`)).id_tokens.length, 0);
      await tokens.getByText('No id tokens yet: add the first one above.').waitFor();
      await tokens.getByLabel('Id token', { exact: true }).fill('CARD-9');
      await tokens.getByLabel('Note (optional)').fill('Van 3');
      await tokens.getByRole('button', { name: 'Add id token' }).click();
      await tokens.getByText('Added CARD-9.').waitFor();
      const row = tokens.locator('tbody tr', { hasText: 'CARD-9' });
      assert.match((await row.innerText()).replace(/\s+/g, ' '), /CARD-9 Van 3 accepted ISO14443 never Block/);
      // The same token in other letters: the service's 409, in words, with its request id.
      await tokens.getByLabel('Id token', { exact: true }).fill('card-9');
      await tokens.getByRole('button', { name: 'Add id token' }).click();
      await tokens
        .locator('.error')
        .getByText(/Request id: console-/)
        .waitFor();
      await tokens.getByRole('button', { name: 'Block CARD-9' }).click();
      await tokens.getByText('Blocked CARD-9: the charger refuses it from now on.').waitFor();
      await row.locator('.badge', { hasText: 'blocked' }).waitFor();
      assert.equal((await ok(svc, admin, 'GET', `${H}/id-tokens/CARD-9`)).status, 'blocked');
      assert.equal((await cp.call('Authorize', { idTag: 'CARD-9' })).idTagInfo.status, 'Blocked', 'the charger is answered from it');
      await axe(page, 'charging hub (commands and id tokens)');
      await shot(page, 'hub-control');
      await tokens.getByRole('button', { name: 'Allow CARD-9 again' }).click();
      await tokens.getByText('Allowed CARD-9 again.').waitFor();
      assert.equal((await cp.call('Authorize', { idTag: 'CARD-9' })).idTagInfo.status, 'Accepted');
    });

    await step('work orders: empty, created from an alert, SLA clocks, assign to me, start and complete', async () => {
      await page.getByRole('link', { name: 'Work orders' }).click();
      await page.getByText('No work orders. Create one from an alert on the Alerts screen.').waitFor();
      await page.getByRole('link', { name: 'Alerts' }).click();
      const top = page.locator('ol.alerts > li').first();
      const title = (await top.locator('.alert-head span').last().innerText()).trim();
      await top.getByRole('button', { name: 'Create work order' }).click();
      await page.getByText(`Work order created for “${title}” (see Work orders).`).waitFor();

      await page.getByRole('link', { name: 'Work orders' }).click();
      const order = page.locator('ol[aria-label="Dispatch list"] > li').first();
      await order.waitFor();
      const made = (await ok(svc, admin, 'GET', '/api/hardware/field/work-orders')).work_orders[0];
      assert.equal(made.source.type, 'alert');
      const text = () => order.innerText().then((x) => x.replace(/\s+/g, ' '));
      assert.match(await text(), new RegExp(`^on time ${made.priority} .+ new `));
      assert.match(await text(), /from an alert/);
      assert.match(await text(), new RegExp(`Response: on time · \\d+ of ${made.sla.response.target_minutes} min .* · due `));
      assert.match(await text(), new RegExp(`Resolution: on time · \\d+ of ${made.sla.resolution.target_minutes} min`));
      assert.match(await text(), /unassigned/);

      await order.getByRole('button', { name: 'Assign to me' }).click();
      await order.getByText(/assigned to you/).waitFor();
      // A visit booked in the console's own day and 24-hour time fields (Debian's Chromium shows
      // its datetime-local input in US order with a 12-hour clock): not a time is said so, and
      // Schedule waits for a real one.
      const visitDay = order.getByRole('textbox', { name: /^Visit for “.+”: day$/ });
      const visitTime = order.getByRole('textbox', { name: /^Visit for “.+”: time$/ });
      await visitDay.fill('25/11/2026');
      await visitTime.fill('25:30');
      await visitTime.blur();
      await order.getByText('Not a time: write the day as dd/mm/yyyy and the time as HH:MM (24-hour), for example 24/11/2026 14:30.').waitFor();
      assert.equal(await order.getByRole('button', { name: 'Schedule' }).isDisabled(), true);
      await visitTime.fill('14:30');
      await order.getByText(/^dd\/mm\/yyyy HH:MM, 24-hour, /).waitFor();
      await order.getByRole('button', { name: 'Schedule' }).click();
      await order.locator('.badge', { hasText: 'scheduled' }).waitFor();
      // The browser and this process share the machine's time zone: 14:30 there, as an instant.
      const booked = new Date(2026, 10, 25, 14, 30);
      assert.equal(Date.parse((await ok(svc, admin, 'GET', `/api/hardware/field/work-orders/${made.id}`)).scheduled_for), booked.getTime());
      await order.getByText(new RegExp(`visit 25 Nov 2026, ${String(booked.getHours()).padStart(2, '0')}:30`)).waitFor();
      await axe(page, 'work orders (visit booked)');
      await order.getByRole('button', { name: 'Start work' }).click();
      await order.locator('.badge', { hasText: 'in progress' }).waitFor();
      await order.getByText(/Response: met/).waitFor();
      await order.getByRole('button', { name: 'Complete' }).click();
      await order.locator('.badge', { hasText: 'completed' }).waitFor();
      await order.getByText(/Resolution: met/).waitFor();
      const now = await ok(svc, admin, 'GET', `/api/hardware/field/work-orders/${made.id}`);
      assert.equal(now.status, 'completed');
      assert.ok(now.assignee_id);
      await page.getByRole('button', { name: 'Breached' }).click();
      await page.getByText('No work orders with this SLA risk.').waitFor();
      assert.match(new URL(page.url()).hash, /^#\/field\?risk=breached$/);
      await page.getByRole('button', { name: 'All' }).click();
      await order.waitFor();
      await axe(page, 'work orders');
      await shot(page, 'field');
    });

    await step('exports: a collection exported with a live progress bar, then downloaded as CSV and as JSON Lines', async () => {
      await page.getByRole('link', { name: 'Exports' }).click();
      const manifest = await ok(svc, admin, 'GET', '/api/organisations/export/manifest');
      const readings = manifest.collections.find((c: { name: string }) => c.name === 'telemetry.readings');
      assert.ok(readings.row_count > 0);
      const row = page.locator('label.check', { hasText: 'telemetry.readings' });
      assert.match((await row.innerText()).replace(/\s+/g, ' '), new RegExp(`telemetry\\.readings ${readings.row_count.toLocaleString('en-GB')} rows`));
      await row.getByRole('checkbox').check();
      await page.getByRole('radio', { name: 'CSV' }).check();
      await page.getByRole('button', { name: 'Start export' }).click();
      await page.getByRole('heading', { name: 'Export progress' }).waitFor();
      const job = new URL(page.url()).hash.match(/job=([^&]+)/)?.[1];
      assert.ok(job, 'the job is in the address');
      const bar = page.locator('progress');
      await page.getByText(`0 of ${readings.row_count.toLocaleString('en-GB')} rows · 0 of 1 collections done`).waitFor();
      assert.equal(await bar.getAttribute('value'), '0');
      // The job runs a step at a time on the service's clock; the bar follows each step it is shown.
      let status = 'queued';
      for (let i = 0; i < 200 && (status === 'queued' || status === 'running'); i++) {
        clockOf(svc).advance(1);
        await svc.runDue();
        status = (await ok(svc, admin, 'GET', `/api/organisations/export/jobs/${job}`)).status;
      }
      assert.equal(status, 'completed');
      await page.getByText(/^completed · CSV · 1 collection/).waitFor();
      await page
        .getByText(`${readings.row_count.toLocaleString('en-GB')} of ${readings.row_count.toLocaleString('en-GB')} rows · 1 of 1 collections done`)
        .waitFor();
      assert.equal(await bar.getAttribute('value'), '100');
      await axe(page, 'exports');
      await shot(page, 'exports');

      const [csv] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download telemetry.readings as CSV' }).click()]);
      assert.equal(csv.suggestedFilename(), 'telemetry.readings.csv');
      const csvText = readFileSync(await csv.path(), 'utf8');
      const lines = csvText.split('\r\n').filter(Boolean);
      assert.equal(lines[0], readings.columns.join(','), 'the header row is the manifest’s columns');
      assert.equal(lines.length, readings.row_count + 1);
      const [jsonl] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('button', { name: 'Download telemetry.readings as JSON Lines' }).click(),
      ]);
      assert.equal(jsonl.suggestedFilename(), 'telemetry.readings.jsonl');
      const rows = readFileSync(await jsonl.path(), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l));
      assert.equal(rows.length, readings.row_count);
      assert.deepEqual(Object.keys(rows[0]).sort(), [...readings.columns].sort());
    });

    await step(
      'energy: rebuild the ledger, its progress by day shown until it completes',
      async () => {
        await page.getByRole('link', { name: 'Energy' }).click();
        // The previous screen's controls are gone before this one's are used (one "Site" picker).
        await until(page, () => {
          const g = globalThis as unknown as PageGlobals;
          return g.location.hash.startsWith('#/energy') && g.document.querySelectorAll('select').length > 0;
        });
        const site = page.getByLabel('Site', { exact: true });
        await until(
          page,
          () =>
            Array.from((globalThis as unknown as PageGlobals).document.querySelectorAll('label')).filter((l) => l.textContent?.trim() === 'Site').length === 1,
        );
        await site.selectOption('S1');
        await page.getByLabel('UK day').fill('2026-11-24');
        await page.getByText(/^Day totals: import /).waitFor();
        await page.getByRole('button', { name: 'Rebuild the ledger' }).click();
        const ledger = () => ok(svc, admin, 'GET', '/api/telemetry/sites/S1/ledger?date=2026-11-24');
        const first = (await ledger()).rebuild;
        assert.ok(first && first.days_total >= 2, 'the seeded telemetry spans two UK days');
        // Where a worker runs jobs (the real services), the rebuild may be done before the page reads it.
        await page.getByText(new RegExp(`^Rebuild (queued|running|completed) · \\d+ of ${first.days_total} days · asked `)).waitFor();
        // One rebuild at a time: the button is disabled while it is queued or running (where a worker
        // finishes it first, the page may go straight to "completed").
        if (first.status !== 'completed')
          await until(
            page,
            () => {
              const d = (globalThis as unknown as PageGlobals).document;
              return (
                Array.from(d.querySelectorAll('button')).some((b) => b.textContent?.trim() === 'Rebuild the ledger' && b.disabled) ||
                d.body.innerText.includes('Rebuild completed')
              );
            },
            undefined,
            { timeout: 15_000 },
          );
        let status = first.status;
        for (let i = 0; i < 100 && (status === 'queued' || status === 'running'); i++) {
          clockOf(svc).advance(1);
          await svc.runDue();
          status = (await ledger()).rebuild.status;
        }
        assert.equal(status, 'completed');
        await page.getByText(new RegExp(`^Rebuild completed · ${first.days_total} of ${first.days_total} days .* · finished `)).waitFor();
        assert.equal(await page.locator('.toolbar progress').getAttribute('value'), String(first.days_total));
        await page.getByRole('button', { name: 'Rebuild the ledger' }).and(page.locator(':enabled')).waitFor();
        await axe(page, 'energy (rebuild)');
        await shot(page, 'energy-rebuild');
      },
      {
        // On the real services the page's one-second refetch and the test's own runs of the queue race
        // (CI saw the page stay at "queued" past the wait); the embedded run covers this screen, and
        // test/energy/ledger.test.ts covers the rebuild itself on both stores.
        skip: process.env.TEST_DATABASE_URL ? 'flaky on the real services: page refetch against the test-driven queue (see comment)' : false,
      },
    );

    await step('energy: the day’s report with each figure’s method and basis, one figure’s lineage, and the week’s carbon', async () => {
      await page.getByRole('link', { name: 'Energy' }).click();
      await until(page, () => {
        const g = globalThis as unknown as PageGlobals;
        return g.location.hash.startsWith('#/energy') && g.document.querySelectorAll('select').length > 0;
      });
      await until(
        page,
        () =>
          Array.from((globalThis as unknown as PageGlobals).document.querySelectorAll('label')).filter((l) => l.textContent?.trim() === 'Site').length === 1,
      );
      await page.getByLabel('Site', { exact: true }).selectOption('S1');
      await page.getByLabel('UK day').fill('24/11/2026');
      const report = await ok(svc, admin, 'GET', '/api/hardware/ems/report?site_id=S1&date=2026-11-24');
      const section = page.locator('section', { has: page.getByRole('heading', { name: 'Report for S1 on 24/11/2026' }) });
      const gen = report.figures.find((f: { key: string }) => f.key === 'generation_kwh');
      const row = section.locator('tbody tr', { hasText: gen.label }).first();
      await row.waitFor();
      const text = (await row.innerText()).replace(/\s+/g, ' ');
      assert.ok(text.includes(gen.method), 'the figure’s method');
      assert.ok(text.includes(gen.basis), 'the figure’s data basis');
      assert.match(text, new RegExp(`${Number(gen.value).toLocaleString('en-GB', { maximumFractionDigits: 3 })} kWh`));
      await section.getByRole('button', { name: `Where from? ${gen.label}`, exact: true }).click();
      const lineage = await ok(svc, admin, 'GET', '/api/hardware/ems/lineage?site_id=S1&date=2026-11-24&figure=generation_kwh');
      await section.getByRole('heading', { name: `Where “${gen.label}” came from` }).waitFor();
      await section.getByText(lineage.formula, { exact: false }).first().waitFor();
      const present = lineage.half_hours.filter((h: { present: boolean }) => h.present).length;
      await section.getByText(new RegExp(`^${present} of ${lineage.half_hours.length} half hours have data`)).waitFor();
      assert.match(new URL(page.url()).hash, /figure=generation_kwh/);

      const carbon = await call(svc, admin, 'GET', '/api/hardware/usage/carbon?site_id=S1&period=day&from=2026-11-18&to=2026-11-24');
      const week = page.locator('section', { has: page.getByRole('heading', { name: 'Carbon at S1, the week to this day' }) });
      await week.waitFor();
      if (carbon.statusCode === 200) {
        const buckets = json(carbon).buckets;
        if (buckets.length === 0) await week.getByText('No energy use recorded in this week.').waitFor();
        else {
          const last = buckets.at(-1);
          const day = week.locator('tbody tr', { hasText: last.label });
          await day.waitFor();
          assert.match(
            (await day.innerText()).replace(/\s+/g, ' '),
            new RegExp(`${Number(last.location_based_kg).toLocaleString('en-GB', { maximumFractionDigits: 3 })} kg CO2e`),
          );
        }
      } else await week.getByText(json(carbon).detail).first().waitFor();
      await axe(page, 'energy (report, lineage, carbon)');
      await shot(page, 'energy-report');
    });

    await step('sites: topology findings, and an unregistered device registered with a button', async () => {
      nextMinute();
      const ts = clockOf(svc).now().toISOString();
      await ok(svc, admin, 'POST', '/api/telemetry/ingest', [
        { asset_id: 'dev-9', ts, power_kw: -1.5, site_ref: 'S2', asset_type: 'inverter', name: 'Barn PV 2' },
      ]);
      const topology = await ok(svc, admin, 'GET', '/api/twin/registry/sites/S2/topology');
      assert.ok(topology.findings.length > 0, 'S2 has findings (no meter)');
      await page.getByRole('link', { name: 'Sites and assets' }).click();
      await page.getByRole('button', { name: /^S2/ }).click();
      await page.getByRole('heading', { name: 'Checks at S2' }).waitFor();
      const list = page.getByRole('list', { name: 'Topology findings at S2' });
      await list.waitFor();
      for (const f of topology.findings) await list.getByText(f.message).waitFor();
      await page.getByText('1 device reports for this site without being registered.').waitFor();
      await page.getByRole('button', { name: 'Register it' }).click();
      await page.getByText('Registered 1 device: dev-9.').waitFor();
      await page.getByText('No unregistered devices report for this site.').waitFor();
      await page.getByRole('button', { name: /Barn PV 2/ }).waitFor();
      const assets = (await ok(svc, admin, 'GET', '/api/twin/registry/assets?site_id=S2')).assets.map((a: { asset_id: string }) => a.asset_id);
      assert.ok(assets.includes('dev-9'), 'the service registered it at S2');
      await axe(page, 'sites (checks)');
      await shot(page, 'sites-checks');
    });

    await step('energy: the market panels say in words that a provider could not be reached, with the request id', async () => {
      nextMinute();
      await page.getByRole('link', { name: 'Energy' }).click();
      await page.getByLabel('UK day').fill('24/11/2026');
      const market = page.locator('section', { has: page.getByRole('heading', { name: 'Tariff prices and carbon intensity' }) });
      await market.getByText('Import unit rate, VAT inclusive').waitFor();
      // The prices' data basis as the service declares it: relayed from the provider, not estimated.
      assert.match(
        (await market.locator('.basis').first().innerText()).replace(/\s+/g, ' '),
        /^Data basis: stored Unit rates as the tariff provider publishes them, relayed unchanged and cached; nothing is estimated\.$/,
      );
      // Nothing cached from the carbon intensity provider: a 502 in words, with the service's answer and the request id.
      const down = market.locator('.error', { hasText: 'The carbon intensity provider could not be reached, and no figures are cached yet.' });
      await down.waitFor();
      assert.match(await down.innerText(), /The service answered 502: “Carbon Intensity API error”\.\s+Request id: \S+/);
      // The tariff provider goes down: after a reload (the session and the day survive it) the
      // service serves the prices it last fetched, marked stale, and the panel says from when.
      tariff.mode = 'down';
      const stale = await ok(svc, admin, 'GET', '/api/trading/prices/provider-agile?period_from=2026-11-24&period_to=2026-11-25');
      assert.equal(stale.stale, true);
      await page.reload();
      const note = market.locator('.note', { hasText: /^The tariff provider could not be reached; last prices from / });
      await note.waitFor();
      assert.match(await note.innerText(), /Request id: console-[0-9a-f-]{36}/);
      await market.getByText('Import unit rate, VAT inclusive').waitFor();
      assert.match(new URL(page.url()).hash, /day=2026-11-24/);
      await axe(page, 'energy (market, providers down)');
      await shot(page, 'energy-market-down');
    });

    await step('dark mode: follows the system setting, a switch overrides it and survives a reload; axe clean in both', async () => {
      const background = () =>
        page.evaluate(() => {
          const g = globalThis as unknown as { getComputedStyle(e: unknown): { backgroundColor: string }; document: { documentElement: unknown } };
          return g.getComputedStyle(g.document.documentElement).backgroundColor;
        });
      const theme = page.getByLabel('Theme');
      await page.emulateMedia({ colorScheme: 'dark' });
      assert.equal(await theme.inputValue(), 'system');
      await until(page, () => (globalThis as unknown as PageGlobals).document.documentElement.dataset.theme === undefined);
      assert.equal(await background(), 'rgb(20, 23, 28)', 'dark by the system setting');
      await axe(page, 'energy (dark, by the system)');
      await shot(page, 'energy-dark');
      await theme.selectOption('light');
      assert.equal(await background(), 'rgb(244, 245, 247)', 'light by choice, the system dark');
      await axe(page, 'energy (light, by choice)');
      await page.reload();
      await page.getByRole('button', { name: 'Sign out' }).waitFor();
      assert.equal(await page.getByLabel('Theme').inputValue(), 'light', 'the choice survives a reload');
      assert.equal(await background(), 'rgb(244, 245, 247)');
      await page.getByLabel('Theme').selectOption('dark');
      await page.emulateMedia({ colorScheme: 'light' });
      assert.equal(await background(), 'rgb(20, 23, 28)', 'dark by choice, the system light');
      await axe(page, 'energy (dark, by choice)');
      await page.getByLabel('Theme').selectOption('system');
      assert.equal(await background(), 'rgb(244, 245, 247)', 'back to the system setting');
    });

    await step('developer settings: a webhook registered, a test event sent and its delivery in the log', async () => {
      nextMinute();
      await page.getByRole('link', { name: 'Developer settings' }).click();
      const hooks = page.locator('section', { has: page.getByRole('heading', { name: 'Webhooks' }) });
      await hooks.getByText('No webhook endpoints.').waitFor();
      const url = `${receiver.url}/journey`;
      await page.getByLabel('HTTPS address').fill(url);
      await hooks.getByRole('button', { name: 'Register' }).click();
      await page.getByRole('region', { name: 'New signing secret' }).getByText('Signing secret, shown once:').waitFor();
      await hooks.getByRole('button', { name: `Deliveries to ${url}` }).click();
      await hooks.getByText('No deliveries yet.').waitFor();
      await hooks.getByRole('button', { name: 'Send a test event' }).click();
      await hooks.getByText('Test event queued.').waitFor();
      const endpoint = (await ok(svc, admin, 'GET', '/api/devtools/webhooks')).webhooks.find((w: { url: string }) => w.url === url);
      const log = () => ok(svc, admin, 'GET', `/api/devtools/webhooks/${endpoint.id}/deliveries`);
      let d = (await log()).deliveries[0];
      // The first attempt is made when due (its next_attempt_at, on the service's clock).
      for (let i = 0; i < 10 && d.status === 'pending'; i++) {
        const due = Date.parse(d.next_attempt_at ?? '');
        if (due > clockOf(svc).now().getTime()) clockOf(svc).set(due);
        else clockOf(svc).advance(1);
        await svc.runDue();
        d = (await log()).deliveries[0];
      }
      assert.equal(d.status, 'succeeded');
      assert.ok(receiver.requests.length >= 1, 'the receiver got the test event');
      // The page reads the log while a delivery waits, so it shows the delivery without a click.
      const row = hooks.locator('tbody tr', { hasText: d.event_type });
      await row.getByText('delivered').waitFor();
      assert.match((await row.innerText()).replace(/\s+/g, ' '), /delivered 1 200/);
      await axe(page, 'developer settings (webhooks)');
      await shot(page, 'developer-webhooks');
    });

    await step('studies: a study from the sample inputs, a run with its live progress bar, its results, report and proposal pack downloaded', async () => {
      nextMinute();
      await page.getByRole('link', { name: 'Studies' }).click();
      await page.getByRole('heading', { name: 'Plan studies' }).waitFor();
      await page.getByText('No studies yet: create one from a type’s sample inputs above.').waitFor();
      await page.getByLabel('Study type').selectOption('depot_savings_audit');
      await page.getByRole('button', { name: 'Create from the sample inputs' }).click();
      await page.getByRole('heading', { name: 'Runs of Sample: Depot savings audit' }).waitFor();
      const study = new URL(page.url()).hash.match(/study=([^&]+)/)?.[1];
      assert.ok(study, 'the study is in the address');
      await page.getByText('No runs yet: start one.').waitFor();
      await page.getByRole('button', { name: 'Start a run' }).click();
      await page.getByText(/^Run (queued|running|succeeded) · asked /).waitFor();
      const runs = () => ok(svc, admin, 'GET', `/api/notifications/studies/${study}/runs`);
      const first = (await runs()).runs[0];
      assert.ok(first, 'the run was started');
      let status = first.status;
      for (let i = 0; i < 100 && (status === 'queued' || status === 'running'); i++) {
        clockOf(svc).advance(1);
        await svc.runDue();
        status = (await runs()).runs[0].status;
      }
      assert.equal(status, 'succeeded');
      const run = (await runs()).runs[0];
      await page.getByText(/^Run succeeded · asked .* · finished /).waitFor();
      assert.equal(await page.locator('.run progress').first().getAttribute('value'), '100');
      await page.getByText(run.results.display_label).first().waitFor();
      const figure = run.results.figures[0];
      await page.locator('.run tbody tr', { hasText: figure.label }).first().waitFor();
      const [report] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download the report (HTML)' }).click()]);
      assert.equal(report.suggestedFilename(), `report-${run.run_id}.html`);
      assert.match(readFileSync(await report.path(), 'utf8'), /<html/i);
      const [pack] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download the proposal pack (ZIP)' }).click()]);
      assert.equal(pack.suggestedFilename(), `proposal-${run.run_id}.zip`);
      assert.equal(
        readFileSync(await pack.path())
          .subarray(0, 2)
          .toString('latin1'),
        'PK',
      );
      await axe(page, 'studies');
      await shot(page, 'studies');
    });

    await step('no script errors in the page', async () => {
      assert.deepEqual(anna.failures, []);
    });
  } finally {
    await Promise.allSettled(chargers.map((c) => c.close({ force: true })));
    await (benConsole as Console | null)?.close();
    await anna.close();
  }
});
