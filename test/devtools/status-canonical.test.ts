// status_canonical's mapping (concepts.md, Partner API telemetry reading): the source's own words
// first, then the sign of power_kw refined by the asset type. The Partner API tests read it through
// HTTP; these pin the table, including types that only look like an EV's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { canonicalStatus } from '../../src/modules/devtools/partner/status-canonical.ts';

test('words map to the canonical set whatever their case; unknown words fall back to the sign', () => {
  assert.equal(canonicalStatus('CHARGING', 3), 'charging');
  assert.equal(canonicalStatus('Fault', 0), 'fault');
  assert.equal(canonicalStatus('no comms', 1), 'offline');
  assert.equal(canonicalStatus('unknown', -1.2), 'exporting');
  assert.equal(canonicalStatus(null, null), 'unknown');
  assert.equal(canonicalStatus(null, 0), 'idle');
});

test('the sign, refined by the asset type: batteries charge and discharge, generators produce, EVs charge', () => {
  assert.equal(canonicalStatus(null, 2, 'battery'), 'charging');
  assert.equal(canonicalStatus(null, -2, 'BESS'), 'discharging');
  assert.equal(canonicalStatus(null, -2, 'solar_inverter'), 'producing');
  assert.equal(canonicalStatus(null, 7, 'ev_charger'), 'charging');
  assert.equal(canonicalStatus(null, 7, 'EV'), 'charging');
  assert.equal(canonicalStatus(null, 7, 'EV charger'), 'charging');
  assert.equal(canonicalStatus(null, 7, 'evse'), 'charging');
  assert.equal(canonicalStatus(null, 7, 'electric_vehicle'), 'charging');
});

test('types with "ev" inside another word are not EVs: a positive reading is an import', () => {
  assert.equal(canonicalStatus(null, 1.5, 'device'), 'importing');
  assert.equal(canonicalStatus(null, 1.5, 'revenue_meter'), 'importing');
  assert.equal(canonicalStatus(null, -1.5, 'device'), 'exporting');
});
