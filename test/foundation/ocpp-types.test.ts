// The OCPP types are generated from the official schemas ocpp-rpc validates against
// (src/modules/hub/ocpp/generate-types.ts). This fails while a checked-in file differs from what the
// schemas give, for example after an ocpp-rpc upgrade: `npm run ocpp-types` writes them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ocppTypeFiles } from '../../src/modules/hub/ocpp/generate-types.ts';

test('the checked-in OCPP types are what the official schemas give (npm run ocpp-types writes them)', async () => {
  const stale: string[] = [];
  for (const f of await ocppTypeFiles()) {
    const path = fileURLToPath(f.url);
    let committed: string | undefined;
    try {
      committed = readFileSync(path, 'utf8');
    } catch {
      stale.push(`${path}: missing`);
      continue;
    }
    if (committed === f.text) continue;
    const a = committed.split('\n');
    const b = f.text.split('\n');
    let at = 0;
    while (a[at] === b[at]) at++;
    stale.push(`${path}: line ${at + 1} is ${JSON.stringify(a[at] ?? '(end)')}, the schemas give ${JSON.stringify(b[at] ?? '(end)')}`);
  }
  assert.deepEqual(stale, [], 'the OCPP types are stale: run npm run ocpp-types and commit src/modules/hub/ocpp/generated');
});

test('each version has the actions the hub handles, with a request and a response type', async () => {
  const [v16, v201] = await ocppTypeFiles();
  for (const a of ['BootNotification', 'Heartbeat', 'StatusNotification', 'Authorize', 'StartTransaction', 'MeterValues', 'StopTransaction']) {
    assert.match(v16.text, new RegExp(`  ${a}: \\{ request: ${a}Request; response: ${a}Response \\};`), a);
  }
  for (const a of ['BootNotification', 'Heartbeat', 'StatusNotification', 'Authorize', 'MeterValues', 'TransactionEvent']) {
    assert.match(v201.text, new RegExp(`  ${a}: \\{ request: ${a}Request; response: ${a}Response \\};`), a);
  }
});
