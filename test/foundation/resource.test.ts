// platform/resource.ts: the operations resourceOps declares from one description (issue 37).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Type } from 'typebox';
import { BEARER, withDefaults, type Operation, type RequestContext } from '../../src/platform/operation.ts';
import { resourceOps, paramsTo, bodyToCreated } from '../../src/platform/resource.ts';

const op = withDefaults({ tags: ['t'], status: 'live', access: BEARER.read });
const Item = Type.Object({ id: Type.String() });
const calls: unknown[][] = [];
const ops = resourceOps(
  op,
  { name: 'Widget', path: '/api/widgets', id: 'widget_id', idSchema: Type.String(), item: Item },
  {
    list: { summary: 'L', query: Type.Object({}), response: Type.Array(Item), handler: async (_ctx, query) => calls.push(['list', query]) },
    create: { summary: 'C', access: BEARER.configure, body: Item, handler: async (_ctx, body) => calls.push(['create', body]) },
    get: { summary: 'G', errors: { 404: Item }, handler: async (_ctx, id) => calls.push(['get', id]) },
    update: { summary: 'U', method: 'PUT', verb: 'replace', body: Item, handler: async (_ctx, id, body) => calls.push(['update', id, body]) },
    remove: { summary: 'D', deleted: 'Removed', handler: async (_ctx, id) => calls.push(['remove', id]) },
  },
);
const input = (o: Partial<{ body: unknown; query: unknown; params: unknown }>) =>
  ({ body: undefined, query: undefined, params: undefined, ctx: {} as RequestContext, req: {}, reply: {}, ...o }) as unknown as Parameters<
    Operation['handler']
  >[0];

test('ids, methods, paths and statuses follow the description, in list, create, get, update, delete order', () => {
  assert.deepEqual(
    ops.map((o) => [o.operationId, o.method, o.path, Object.keys(o.schema.response).join(','), o.access]),
    [
      ['listWidgets', 'GET', '/api/widgets', '200', BEARER.read],
      ['createWidget', 'POST', '/api/widgets', '201', BEARER.configure],
      ['getWidget', 'GET', '/api/widgets/{widget_id}', '200,404', BEARER.read],
      ['replaceWidget', 'PUT', '/api/widgets/{widget_id}', '200', BEARER.read],
      ['deleteWidget', 'DELETE', '/api/widgets/{widget_id}', '204', BEARER.read],
    ],
  );
  assert.equal((ops[4].schema.response[204] as { description?: string }).description, 'Removed');
  assert.deepEqual(Object.keys((ops[2].schema.params as { properties?: object } | undefined)?.properties ?? {}), ['widget_id']);
  assert.equal(ops[0].description, undefined, 'a text left out stays out');
});

test('handlers get the query, body and path id; a delete answers nothing', async () => {
  await ops[0].handler(input({ query: { a: 1 } }));
  await ops[1].handler(input({ body: { id: 'x' } }));
  await ops[2].handler(input({ params: { widget_id: 'w1' } }));
  await ops[3].handler(input({ params: { widget_id: 'w2' }, body: { id: 'y' } }));
  assert.equal(await ops[4].handler(input({ params: { widget_id: 'w3' } })), undefined);
  assert.deepEqual(calls, [
    ['list', { a: 1 }],
    ['create', { id: 'x' }],
    ['get', 'w1'],
    ['update', 'w2', { id: 'y' }],
    ['remove', 'w3'],
  ]);
});

test('the one-part schema helpers write the declaration they stand for', () => {
  assert.deepEqual(paramsTo(Item, Item), { params: Item, response: { 200: Item } });
  assert.deepEqual(bodyToCreated(Item, Item), { body: Item, response: { 201: Item } });
});
