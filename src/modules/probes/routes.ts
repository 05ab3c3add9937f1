import { Type } from 'typebox';
import { withDefaults } from '../../platform/operation.ts';
import type { AppDeps } from '../../platform/module.ts';

const Checks = Type.Object({ bus: Type.Boolean(), cache: Type.Boolean(), database: Type.Boolean() });
const Readiness = Type.Object(
  {
    status: Type.Union([Type.Literal('ready'), Type.Literal('degraded')]),
    checks: Checks,
    read_replica: Type.Optional(
      Type.Object(
        {
          in_use: Type.Boolean({ description: 'true: reads that tolerate lag go to the standby; false: they go to the primary' }),
          lag_seconds: Type.Union([Type.Number(), Type.Null()], { description: 'Replay lag of the standby (0 when caught up), null when unknown' }),
          reason: Type.Optional(Type.String({ description: 'Why reads are on the primary' })),
        },
        { description: 'Present when DATABASE_READ_URL is set. The standby being away does not make the service degraded: its reads go to the primary.' },
      ),
    ),
    mqtt: Type.Optional(
      Type.Object(
        {
          configured: Type.Boolean({ description: 'true when MQTT_URL is set; false: device MQTT is off and devices use HTTP' }),
          connected: Type.Boolean({ description: "true while this instance's consumer is connected to the broker (false when not configured)" }),
        },
        {
          description:
            "Device MQTT (docs/devices.md, decision 0441). A broker away does not make the service degraded: HTTP ingestion goes on and the broker keeps the devices' messages for the consumer's session.",
        },
      ),
    ),
    stores: Type.Optional(
      Type.Object({ database: Type.String(), cache: Type.String(), bus: Type.String() }, { description: 'Which adapter backs each dependency' }),
    ),
  },
  { additionalProperties: true },
);

const op = withDefaults({ tags: ['probes'], status: 'live', access: { kind: 'public' } });

export function probeOperations(deps: AppDeps) {
  const { db, readDb, cache, bus, metrics } = deps;
  // The spec names it on /api/telemetry/metrics, so it keeps its name (no prefix).
  const readinessGauge = metrics.gauge({ name: 'telemetry_readiness', help: '1 when ready, 0 when degraded', unprefixed: true });

  async function readiness() {
    const [database, cacheOk, busOk, replica] = await Promise.all([
      db.ping(1000),
      cache.ping(1000),
      bus.ping(1000),
      readDb.replicated ? readDb.check(1000) : undefined,
    ]);
    const checks = { bus: busOk, cache: cacheOk, database };
    // A database outage does not make the service degraded: data is still accepted and streamed.
    // Nor does the read replica's: its reads go to the primary (decision 0250).
    const ready = busOk && cacheOk;
    readinessGauge.set(ready ? 1 : 0);
    const readReplica = replica && {
      in_use: replica.available,
      lag_seconds: replica.lagSeconds === null ? null : Math.round(replica.lagSeconds * 1000) / 1000,
      ...(replica.reason ? { reason: replica.reason } : {}),
    };
    return { ready, checks, readReplica };
  }

  return [
    op({
      operationId: 'getHealthz',
      method: 'GET',
      path: '/api/telemetry/healthz',
      summary: 'Liveness: the process is running',
      description: 'Checks no dependency. 200 while the process runs.',
      probe: true,
      schema: { response: { 200: Type.Object({ status: Type.Literal('ok') }) } },
      handler: async () => ({ status: 'ok' as const }),
    }),
    op({
      operationId: 'getReadyz',
      method: 'GET',
      path: '/api/telemetry/readyz',
      summary: 'Readiness of the ingestion dependencies',
      description:
        '200 `ready` or 503 `degraded`. `checks` holds booleans `bus`, `cache` and `database`. A false `bus` or ' +
        '`cache` gives 503 (writes fail). A false `database` does not set degraded: data is accepted and streamed ' +
        'but not stored. With a read replica configured, `read_replica` says whether lag-tolerant reads go to it ' +
        '(`in_use`), its replay lag and, when they are on the primary, why; its absence does not set degraded. ' +
        '`mqtt` says whether device MQTT is configured and whether this instance is connected to the broker; a broker away does not set degraded.',
      probe: true,
      dataBasis: { basis: 'measured', method: 'Each check pings the dependency with a one-second timeout.' },
      schema: { response: { 200: Readiness, 503: Readiness } },
      handler: async ({ reply }) => {
        const { ready, checks, readReplica } = await readiness();
        reply.code(ready ? 200 : 503);
        return {
          status: ready ? 'ready' : 'degraded',
          checks,
          ...(readReplica ? { read_replica: readReplica } : {}),
          ...deps.readiness.collect(),
          stores: { database: db.kind, cache: cache.kind, bus: bus.kind },
        };
      },
    }),
    op({
      operationId: 'getMetrics',
      method: 'GET',
      path: '/api/telemetry/metrics',
      summary: 'Prometheus metrics',
      description:
        'Text exposition format. Includes `telemetry_ingest_total` (cumulative accepted records), ' +
        '`telemetry_readiness` (1 ready, 0 degraded), request counts and latency histograms by route.',
      probe: true,
      produces: 'text/plain; version=0.0.4; charset=utf-8',
      schema: { response: { 200: Type.String({ description: 'Prometheus text exposition' }) } },
      handler: async ({ reply }) => {
        await readiness();
        reply.type(metrics.registry.contentType);
        return metrics.registry.metrics();
      },
    }),
  ];
}
