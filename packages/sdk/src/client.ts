// The SDK: the generated, fully typed client for every operation (`platform.api`), and hand-written
// helpers where they add something: paging as async iterators, ingestion in batches with per-record
// outcomes, and short names for keys, webhooks, history and exports.
import createFetchClient, { type Client } from 'openapi-fetch';
import type { components, operations, paths } from './generated/openapi.ts';
import { Transport, type Credentials, type RetryOptions, type Session, type TransportOptions } from './transport.ts';
import { ingestBatches, ingestAll, type IngestOptions, type IngestReport, type TelemetryRecord, type BatchOutcome } from './ingest.ts';
import { paginate } from './paging.ts';
import { liveStream, type LiveStreamEvent } from './live.ts';

export type { Credentials, RetryOptions, Session, LiveStreamEvent };
export type PlatformOptions = TransportOptions;

type Json<O, S extends number = 200> = O extends { responses: { [K in S]: { content: { 'application/json': infer B } } } } ? B : never;
type Body<O> = O extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never;
type Query<O> = O extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;

export type PartnerAlert = Json<operations['listPartnerAlerts']>['alerts'][number];
export type PartnerDevice = Json<operations['listPartnerDevices']>['devices'][number];
export type PartnerReading = Json<operations['listPartnerLatestTelemetry']>['readings'][number];
export type LiveEvent = Json<operations['listLiveTelemetryEvents']>['events'][number];
export type AssetHistory = Json<operations['getAssetTelemetryHistory']>;
export type ApiKey = Schemas['ApiKey'];
export type NewApiKey = Body<operations['createApiKey']>;
export type NewWebhookEndpoint = Body<operations['createWebhookEndpoint']>;
export type WebhookEndpointChange = Body<operations['updateWebhookEndpoint']>;
export type ExportRequest = Body<operations['createExport']>;
export type ExportJob = Json<operations['getExportJob']>;
export type Schemas = components['schemas'];

/** The data of a typed call (the transport has already turned every refusal into an ApiError). */
async function data<T>(call: Promise<{ data?: T; response: Response }>): Promise<T> {
  return (await call).data as T;
}

export class Platform {
  /** Every operation of the service, typed from its OpenAPI document (openapi-fetch). */
  readonly api: Client<paths>;
  readonly transport: Transport;

  constructor(opts: PlatformOptions) {
    this.transport = new Transport(opts);
    this.api = createFetchClient<paths>({ baseUrl: this.transport.baseUrl, fetch: (req) => this.transport.send(req) });
  }

  /** Signs in with the password credentials now (otherwise the first call does). */
  signIn(): Promise<Session> {
    return this.transport.signIn();
  }

  signOut(): Promise<void> {
    return this.transport.signOut();
  }

  get session(): Session | undefined {
    return this.transport.currentSession;
  }

  /** The partner API (an API key with read scopes). Each list is an async iterator over every page. */
  readonly partner = {
    me: () => data(this.api.GET('/api/devtools/partner/v1/me')),
    alerts: (q: Omit<Query<operations['listPartnerAlerts']>, 'cursor'> = {}): AsyncIterable<PartnerAlert> =>
      paginate(async (cursor) => {
        const page = await data(this.api.GET('/api/devtools/partner/v1/alerts', { params: { query: { ...q, ...(cursor && { cursor }) } } }));
        return { items: page.alerts, next: page.next_cursor };
      }),
    devices: (q: Omit<Query<operations['listPartnerDevices']>, 'cursor'> = {}): AsyncIterable<PartnerDevice> =>
      paginate(async (cursor) => {
        const page = await data(this.api.GET('/api/devtools/partner/v1/devices', { params: { query: { ...q, ...(cursor && { cursor }) } } }));
        return { items: page.devices, next: page.next_cursor };
      }),
    telemetry: (q: Omit<Query<operations['listPartnerLatestTelemetry']>, 'cursor'> = {}): AsyncIterable<PartnerReading> =>
      paginate(async (cursor) => {
        const page = await data(this.api.GET('/api/devtools/partner/v1/telemetry/latest', { params: { query: { ...q, ...(cursor && { cursor }) } } }));
        return { items: page.readings, next: page.next_cursor };
      }),
  };

  /** Telemetry: ingestion in batches, the live window, history. */
  readonly telemetry = {
    /** Sends one batch as is (one request); the answer with its per-record results. */
    ingestBatch: async (records: TelemetryRecord[]): Promise<BatchOutcome> => {
      for await (const outcome of ingestBatches(this.transport, records, { batchSize: Math.max(1, records.length) })) return outcome;
      throw new RangeError('ingestBatch needs at least one record');
    },
    /** Splits records (an array or any async iterable) into batches; yields each batch's outcome as it lands. */
    ingestBatches: (records: Iterable<TelemetryRecord> | AsyncIterable<TelemetryRecord>, opts: IngestOptions = {}) =>
      ingestBatches(this.transport, records, opts),
    /** Sends every record in batches and reports every record's outcome and the rejections by reason. */
    ingest: (records: Iterable<TelemetryRecord> | AsyncIterable<TelemetryRecord>, opts: IngestOptions = {}): Promise<IngestReport> =>
      ingestAll(this.transport, records, opts),
    /** The newest stored records (the last 24 hours' window), newest first. */
    liveEvents: async (q: Query<operations['listLiveTelemetryEvents']> = {}): Promise<LiveEvent[]> =>
      (await data(this.api.GET('/api/telemetry/live/events', { params: { query: q } }))).events,
    /**
     * The organisation's live telemetry and alerts as they happen (GET /api/live/events, server-sent
     * events), until `signal` aborts or the service closes the stream. The first event is `ready`.
     */
    stream: (opts: { signal?: AbortSignal } = {}): AsyncIterable<LiveStreamEvent> => liveStream(this.transport, opts.signal),
    history: (
      assetType: paths['/api/telemetry/assets/{asset_type}/{asset_id}/history']['get']['parameters']['path']['asset_type'],
      assetId: string,
      q: Query<operations['getAssetTelemetryHistory']> = {},
    ): Promise<AssetHistory> =>
      data(this.api.GET('/api/telemetry/assets/{asset_type}/{asset_id}/history', { params: { path: { asset_type: assetType, asset_id: assetId }, query: q } })),
  };

  /** API keys (organisation administrators). */
  readonly keys = {
    list: (q: Query<operations['listApiKeys']> = {}) => data(this.api.GET('/api/devtools/apikeys', { params: { query: q } })),
    create: (body: NewApiKey, q: Query<operations['createApiKey']> = {}) => data(this.api.POST('/api/devtools/apikeys', { body, params: { query: q } })),
    rotate: (keyId: string, body: Body<operations['rotateApiKey']> = {}) =>
      data(this.api.POST('/api/devtools/apikeys/{key_id}/rotate', { body, params: { path: { key_id: keyId } } })),
    revoke: (keyId: string) => data(this.api.POST('/api/devtools/apikeys/{key_id}/revoke', { params: { path: { key_id: keyId } } })),
  };

  /** Webhook endpoints (organisation administrators). */
  readonly webhooks = {
    list: () => data(this.api.GET('/api/devtools/webhooks')),
    create: (body: NewWebhookEndpoint, q: Query<operations['createWebhookEndpoint']> = {}) =>
      data(this.api.POST('/api/devtools/webhooks', { body, params: { query: q } })),
    update: (endpointId: string, body: WebhookEndpointChange) =>
      data(this.api.PATCH('/api/devtools/webhooks/{endpoint_id}', { body, params: { path: { endpoint_id: endpointId } } })),
    remove: (endpointId: string) => data(this.api.DELETE('/api/devtools/webhooks/{endpoint_id}', { params: { path: { endpoint_id: endpointId } } })),
    rotateSecret: (endpointId: string, body: Body<operations['rotateWebhookSecret']> = {}) =>
      data(this.api.POST('/api/devtools/webhooks/{endpoint_id}/rotate-secret', { body, params: { path: { endpoint_id: endpointId } } })),
    test: (endpointId: string, body: Body<operations['testWebhookEndpoint']> = {}) =>
      data(this.api.POST('/api/devtools/webhooks/{endpoint_id}/test', { body, params: { path: { endpoint_id: endpointId } } })),
    deliveries: (endpointId: string, q: Omit<Query<operations['listWebhookDeliveries']>, 'cursor'> = {}) =>
      paginate(async (cursor) => {
        const page = await data(
          this.api.GET('/api/devtools/webhooks/{endpoint_id}/deliveries', {
            params: { path: { endpoint_id: endpointId }, query: { ...q, ...(cursor && { cursor }) } },
          }),
        );
        return { items: page.deliveries, next: page.next_cursor };
      }),
  };

  /** Organisation data export (organisation administrators). */
  readonly exports = {
    manifest: () => data(this.api.GET('/api/organisations/export/manifest')),
    start: (body: ExportRequest = {}) => data(this.api.POST('/api/organisations/export', { body })),
    job: (jobId: string) => data(this.api.GET('/api/organisations/export/jobs/{job_id}', { params: { path: { job_id: jobId } } })),
    /** Polls the job until it is completed (or failed/expired), calling onProgress with each state. */
    wait: async (
      jobId: string,
      opts: { intervalMs?: number; onProgress?: (job: ExportJob) => void; sleep?: (ms: number) => Promise<void> } = {},
    ): Promise<ExportJob> => {
      const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
      for (;;) {
        const job = await this.exports.job(jobId);
        opts.onProgress?.(job);
        if (job.status !== 'queued' && job.status !== 'running') return job;
        await sleep(opts.intervalMs ?? 1000);
      }
    },
    /** The whole export (JSON Lines) as a stream of bytes. */
    download: async (jobId: string): Promise<ReadableStream<Uint8Array>> => {
      const res = await this.transport.send(new Request(`${this.transport.baseUrl}/api/organisations/export/jobs/${encodeURIComponent(jobId)}/download`));
      return res.body!;
    },
    /** One collection of a completed export, as JSON Lines or CSV (the job's format by default), as a stream of bytes. */
    downloadCollection: async (jobId: string, collection: string, format?: 'jsonl' | 'csv'): Promise<ReadableStream<Uint8Array>> => {
      const query = format ? `?format=${format}` : '';
      const res = await this.transport.send(
        new Request(
          `${this.transport.baseUrl}/api/organisations/export/jobs/${encodeURIComponent(jobId)}/collections/${encodeURIComponent(collection)}${query}`,
        ),
      );
      return res.body!;
    },
  };
}

/** A client for the service at `baseUrl` with an API key, a password sign-in, or a kept session. */
export function createPlatform(opts: PlatformOptions): Platform {
  return new Platform(opts);
}
