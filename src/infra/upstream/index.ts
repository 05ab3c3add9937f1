// Shared mechanics for third-party providers: a client per provider (base URL, timeout, retry with
// backoff on idempotent reads, metrics, SSRF guard) and a response cache with stale fallback.
// Each provider's wire shapes live in the module that uses it.
export {
  createUpstreamClient,
  jsonBody,
  BadResponseError,
  UpstreamError,
  type UpstreamClient,
  type UpstreamClientOptions,
  type UpstreamCall,
  type UpstreamFailure,
  type Query,
} from './client.ts';
export { createUpstreamCache, type UpstreamCache, type CacheEntry, type Served, type ServeOptions } from './cache.ts';
