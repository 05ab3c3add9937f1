// The three telemetry operations of endpoints.md 4.2: ingest, live events, history.
import { defineOperation } from '../../platform/operation.ts';
import { CAN_INGEST, CAN_READ } from '../../platform/roles.ts';
import type { Config } from '../../core/config.ts';
import type { TelemetryService } from './service.ts';
import { LIVE_WINDOW_HOURS } from './service.ts';
import {
  HistoryParams,
  HistoryQuery,
  HistoryResult,
  IngestBody,
  IngestBodyDoc,
  IngestForbidden,
  IngestRejected,
  IngestResult,
  IngestUnavailable,
  LiveEventsQuery,
  LiveEventsResult,
} from './schemas.ts';

export function telemetryOperations(service: TelemetryService, config: Config) {
  return [
    defineOperation({
      operationId: 'ingestTelemetry',
      method: 'POST',
      path: '/api/telemetry/ingest',
      summary: 'Ingest telemetry records',
      description: [
        'One record object or an array of them (100 to 1000 per request recommended; bodies up to 5 MB are safe).',
        'Each record is checked on its own: a record without asset_id/device_id, with a missing or unreadable ts',
        '(non-ISO text, Unix epoch numbers), a measurement that is not a number or a status that is not a string is',
        'rejected by index, field and reason, and the rest of the batch is still stored. Out-of-range values are stored',
        'and flagged in `anomalies`. An exact copy of an earlier record in the same request is stored once and counted',
        'in `duplicates`; two requests with the same asset_id and ts both persist.',
        '',
        '200: every record stored. 207: some rejected or duplicated, the rest stored; `results` has one entry per record.',
        '422 `all_records_rejected`: nothing stored. 403 `cross_tenant_record`: a record names another organisation',
        '(`index`, `field` locate it); nothing of the batch is stored. 503 `writer_error`: the store did not persist',
        'the batch (`stored` 0; `streamed` says what reached the live stream); retry it. Compare `stored` to `count`.',
        'A batch is one transaction, written in array order, and published to the live stream after commit. `streamed`',
        'counts the records the live stream had accepted when the answer was sent (the answer waits for it at most 2 s,',
        'not at all while the bus is disconnected); a publish the bus refused while failing over is tried again for up to',
        '30 s, so those records may still reach the live stream after the answer (decision 0488).',
        'A device credential with scope telemetry:write may call it too (decision 0375, docs/devices.md): a record of a device',
        'registered at another site is rejected (`device_on_another_site`), and, when the credential lists device ids, one of',
        'any other device (`device_not_in_credential`).',
      ].join('\n'),
      tags: ['telemetry'],
      status: 'live',
      access: { kind: 'bearer', roles: CAN_INGEST, device: { scope: 'telemetry:write' } },
      bodyLimit: config.ingestBodyLimitBytes,
      requestIdHeader: true,
      handlesNulInBody: true,
      dataBasis: { basis: 'measured' },
      documentedBody: IngestBodyDoc,
      schema: {
        body: IngestBody,
        response: { 200: IngestResult, 207: IngestResult, 403: IngestForbidden, 422: IngestRejected, 503: IngestUnavailable },
      },
      handler: async ({ body, ctx, reply }) => {
        const { httpStatus, ...result } = await service.ingest(ctx, body);
        reply.code(httpStatus);
        return result;
      },
    }),
    defineOperation({
      operationId: 'listLiveTelemetryEvents',
      method: 'GET',
      path: '/api/telemetry/live/events',
      summary: 'Most recent telemetry records',
      description:
        `The organisation's most recently received records, newest first, optionally for one asset: a recency window ` +
        `(records received in the last ${LIVE_WINDOW_HOURS} hours), not a query API. Lists stored records only, so ` +
        'it can confirm whether a batch was persisted after an ambiguous failure.',
      tags: ['telemetry'],
      status: 'live',
      access: { kind: 'bearer', roles: CAN_READ },
      dataBasis: { basis: 'stored', readings: true },
      schema: { query: LiveEventsQuery, response: { 200: LiveEventsResult } },
      handler: async ({ query, ctx }) => {
        const limit = query.limit ?? 50;
        const events = await service.liveEvents(ctx, { limit, assetId: query.asset_id });
        return { events, count: events.length, limit, window_hours: LIVE_WINDOW_HOURS };
      },
    }),
    defineOperation({
      operationId: 'getAssetTelemetryHistory',
      method: 'GET',
      path: '/api/telemetry/assets/{asset_type}/{asset_id}/history',
      summary: 'Bucketed history of one asset metric',
      description:
        'Mean of the stored samples per time bucket over a window ending now, for one asset and metric, with a ' +
        'summary (count, min, max, avg, latest of the samples). The series is sparse: empty buckets are omitted. ' +
        'Source fields are tried in order per record; a source ending in _w is divided by 1000 (kW). Where a ' +
        'directional metric falls back to signed power_kw the sign convention applies (charge/import = positive ' +
        'part, discharge/export/generation = negative part as a positive value). `source: timeseries_unavailable` ' +
        'means the store was unreachable and the series is empty for that reason.',
      tags: ['telemetry'],
      status: 'live',
      access: { kind: 'bearer', roles: CAN_READ },
      dataBasis: {
        basis: 'calculated',
        method: 'Arithmetic mean of the stored samples of the metric in each date_bin bucket, aligned to UTC midnight (weeks start on Monday).',
      },
      schema: { params: HistoryParams, query: HistoryQuery, response: { 200: HistoryResult } },
      handler: async ({ params, query, ctx }) =>
        service.history(ctx, {
          assetType: params.asset_type,
          assetId: params.asset_id,
          range: query.range ?? 'hourly',
          metric: query.metric,
        }),
    }),
  ];
}
