// PGLITE_SHARED_BUFFERS_MB: the embedded store's shared_buffers (decision 0388), in the worker
// thread and in the event loop's thread, and the setting's bounds.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openPglite } from '../../src/infra/db/pglite.ts';
import { loadConfig, ConfigError } from '../../src/config.ts';
import { realServers } from '../helpers/service.ts';

// The embedded store's own engines, whatever the suite's store: the real-servers run skips them.
const embeddedOnly = !!realServers.database && 'the embedded store only';
for (const worker of [true, false]) {
  test(`shared_buffers follows the setting (engine ${worker ? 'in a worker' : 'in the thread'}); unset, PostgreSQL's 128MB`, {
    skip: embeddedOnly,
  }, async () => {
    const small = await openPglite(undefined, { worker, sharedBuffersMb: 16 });
    const plain = await openPglite(undefined, { worker });
    try {
      assert.deepEqual((await small.query('show shared_buffers')).rows, [{ shared_buffers: '16MB' }]);
      assert.deepEqual((await plain.query('show shared_buffers')).rows, [{ shared_buffers: '128MB' }]);
      // PGlite's own start parameters are kept.
      assert.deepEqual((await small.query('show max_worker_processes')).rows, [{ max_worker_processes: '0' }]);
    } finally {
      await small.close();
      await plain.close();
    }
  });
}

test('PGLITE_SHARED_BUFFERS_MB: 128 by default, 1 to 4096 MB, anything else refused at start', () => {
  assert.equal(loadConfig({ DATA_DIR: ':memory:' }).pgliteSharedBuffersMb, 128);
  assert.equal(loadConfig({ DATA_DIR: ':memory:', PGLITE_SHARED_BUFFERS_MB: '16' }).pgliteSharedBuffersMb, 16);
  for (const bad of ['0', '4097', '16MB', '-1'])
    assert.throws(
      () => loadConfig({ DATA_DIR: ':memory:', PGLITE_SHARED_BUFFERS_MB: bad }),
      (e: Error) => e instanceof ConfigError && /PGLITE_SHARED_BUFFERS_MB/.test(e.message),
    );
});
