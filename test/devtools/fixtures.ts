// A test-only deprecated key operation, to drive the deprecation machinery (T-17).
import { Type } from 'typebox';
import { defineOperation } from '../../src/platform/operation.ts';
import type { ModuleFactory } from '../../src/platform/module.ts';

export const DEPRECATION = { on: '2026-11-01', sunset: '2027-05-31', replacement: 'listPartnerDevices' };

export const deprecatedKeyFixture: ModuleFactory = () => ({
  name: 'devtools-fixtures',
  operations: [
    defineOperation({
      operationId: 'fixtureDeprecatedPartnerDevices',
      method: 'GET',
      path: '/api/devtools/partner/v1/fixture/devices-old',
      summary: 'Deprecated key operation (test fixture)',
      tags: ['fixtures'],
      hidden: true,
      status: 'live',
      access: { kind: 'key', scope: 'devices:read' },
      deprecation: DEPRECATION,
      schema: { response: { 200: Type.Object({ ok: Type.Boolean() }) } },
      handler: async () => ({ ok: true }),
    }),
  ],
});
