// @energy-platform/sdk: a typed client for the energy platform API.
export { Platform, createPlatform } from './client.ts';
export type {
  PlatformOptions,
  Credentials,
  RetryOptions,
  Session,
  PartnerAlert,
  PartnerDevice,
  PartnerReading,
  LiveEvent,
  AssetHistory,
  ApiKey,
  NewApiKey,
  NewWebhookEndpoint,
  WebhookEndpointChange,
  ExportRequest,
  ExportJob,
  Schemas,
} from './client.ts';
export { Transport } from './transport.ts';
export type { TransportOptions, SendOptions } from './transport.ts';
export { ApiError, ConnectionError, isApiError, parseRetryAfter } from './errors.ts';
export type { FieldError, RecordResult } from './errors.ts';
export { paginate } from './paging.ts';
export type { LiveStreamEvent, LiveTelemetryRecord, LiveAlert } from './live.ts';
export type { Page } from './paging.ts';
export type { TelemetryRecord, IngestOptions, BatchOutcome, IngestReport } from './ingest.ts';
export { verifyWebhook, isValidWebhookSignature, WebhookVerificationError } from './verify-webhook.ts';
export type { VerifyOptions, WebhookEvent } from './verify-webhook.ts';
export type { paths, components, operations } from './generated/openapi.ts';
