// Test-only operations that exercise the platform mechanisms (status labels, module gates,
// audiences, deprecation, body validation) without depending on a business module.
import { Type } from 'typebox';
import { defineOperation } from '../../src/platform/operation.ts';
import type { ModuleFactory } from '../../src/platform/module.ts';
import { CAN_READ, ADMIN_ONLY } from '../../src/platform/roles.ts';
import { AppError } from '../../src/platform/errors.ts';
import { deferred, Inbox } from './signal.ts';

let current = deferred();
/** GET /api/test-fixture/held: `entered` sees each request reach the handler; `release()` lets the waiting ones answer. */
export const held = {
  entered: new Inbox<string>(),
  release() {
    current.resolve();
    current = deferred();
  },
};

const Echo = Type.Object({ ok: Type.Boolean() }, { additionalProperties: true });
const base = { tags: ['fixtures'], hidden: true, status: 'live' as const };

export const fixtureModule: ModuleFactory = () => ({
  name: 'fixtures',
  operations: [
    defineOperation({
      ...base,
      operationId: 'fixtureEcho',
      method: 'POST',
      path: '/api/test-fixture/echo',
      summary: 'Validates a body',
      access: { kind: 'bearer', roles: CAN_READ },
      schema: {
        body: Type.Object(
          {
            email: Type.String({ format: 'email' }),
            count: Type.Integer({ minimum: 1, maximum: 10 }),
            kind: Type.Optional(Type.Union([Type.Literal('a'), Type.Literal('b')])),
          },
          { additionalProperties: false },
        ),
        query: Type.Object({ limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500 })) }),
        response: { 200: Echo },
      },
      handler: async ({ body, query }) => ({ ok: true, body, query }),
    }),
    defineOperation({
      ...base,
      operationId: 'fixtureDevtoolsEcho',
      method: 'POST',
      path: '/api/devtools/test-fixture/echo',
      summary: 'Validates a body on the devtools surface',
      access: { kind: 'bearer', roles: ADMIN_ONLY },
      schema: {
        body: Type.Object({ name: Type.String({ minLength: 1 }) }),
        response: { 200: Echo },
      },
      handler: async () => ({ ok: true }),
    }),
    defineOperation({
      ...base,
      operationId: 'fixtureModuleGated',
      method: 'GET',
      path: '/api/test-fixture/field-only',
      summary: 'Needs the field module',
      access: { kind: 'bearer', roles: CAN_READ },
      module: 'field',
      schema: { response: { 200: Echo } },
      handler: async () => ({ ok: true }),
    }),
    defineOperation({
      ...base,
      status: 'demo-realm',
      operationId: 'fixtureDemo',
      method: 'POST',
      path: '/api/test-fixture/demo-only',
      summary: 'Demo realm only',
      access: { kind: 'bearer', roles: CAN_READ },
      schema: { response: { 200: Echo } },
      handler: async () => ({ ok: true }),
    }),
    defineOperation({
      ...base,
      operationId: 'fixtureStaff',
      method: 'GET',
      path: '/api/test-fixture/staff-only',
      summary: 'Platform staff only',
      audience: 'platform-staff',
      access: { kind: 'bearer', roles: CAN_READ },
      schema: { response: { 200: Echo } },
      handler: async () => ({ ok: true }),
    }),
    defineOperation({
      ...base,
      status: 'awaiting-migration',
      operationId: 'fixtureAwaiting',
      method: 'GET',
      path: '/api/test-fixture/awaiting',
      summary: 'Awaiting migration',
      access: { kind: 'bearer', roles: CAN_READ },
      schema: { response: { 200: Echo } },
      handler: async () => ({ ok: true }),
    }),
    defineOperation({
      ...base,
      operationId: 'fixtureDeprecated',
      method: 'GET',
      path: '/api/test-fixture/deprecated/{id}',
      summary: 'Deprecated',
      access: { kind: 'bearer', roles: CAN_READ },
      deprecation: { on: '2026-11-01', sunset: '2027-05-01', replacement: 'fixtureEcho' },
      schema: { params: Type.Object({ id: Type.String() }), response: { 200: Echo } },
      handler: async ({ params }) => {
        if (params.id === 'missing') throw new AppError(404, 'Not Found');
        return { ok: true };
      },
    }),
    defineOperation({
      ...base,
      operationId: 'fixtureCrash',
      method: 'GET',
      path: '/api/test-fixture/crash',
      summary: 'Throws an unexpected error',
      access: { kind: 'bearer', roles: CAN_READ },
      schema: { response: { 200: Echo } },
      handler: async () => {
        throw new Error('secret internal detail at /srv/app.ts:42');
      },
    }),
    defineOperation({
      ...base,
      operationId: 'fixturePublic',
      method: 'GET',
      path: '/api/test-fixture/public',
      summary: 'Answers at once, without a credential',
      access: { kind: 'public' },
      schema: { response: { 200: Echo } },
      handler: async () => ({ ok: true }),
    }),
    defineOperation({
      ...base,
      operationId: 'fixtureHeld',
      method: 'GET',
      path: '/api/test-fixture/held',
      summary: 'Answers when the test releases it (held.release())',
      access: { kind: 'public' },
      schema: { response: { 200: Echo } },
      handler: async () => {
        const gate = current;
        held.entered.push('held');
        await gate.promise;
        return { ok: true };
      },
    }),
  ],
});
