// The developer platform's own errors (status, detail, stable code), named once.
import { AppError, errors, fieldError } from '../../platform/errors.ts';

export const devtoolsErrors = {
  keyNotActive: (status: string) => new AppError(409, `API key is ${status}; only an active key can be rotated`, { code: 'api_key_not_active' }),
  endpointDisabled: () => new AppError(409, 'Webhook endpoint is disabled; re-enable it first', { code: 'webhook_endpoint_disabled' }),
  sandboxOnlyEventType: (type: string) =>
    new AppError(400, `event_type ${type} is sent from the sandbox only; a live endpoint accepts webhook.test`, {
      code: 'sandbox_only_event_type',
    }),
  eventNotFound: () => new AppError(404, 'Not Found', { code: 'event_not_found' }),
  idempotencyConflict: () => new AppError(409, 'Idempotency-Key was already used with a different request', { code: 'idempotency_conflict' }),
  idempotencyInProgress: () => new AppError(409, 'A request with this Idempotency-Key is still being processed', { code: 'idempotency_in_progress' }),
  sandboxBacklogFull: (pending: number, adding: number, max: number) =>
    new AppError(
      429,
      `${pending} sandbox deliveries are still pending and this send would add ${adding}; at most ${max} may be pending. ` +
        'Wait for them to be delivered, or disable the sandbox endpoints that do not answer.',
      { code: 'sandbox_backlog_full', headers: { 'Retry-After': '60' } },
    ),
  invalidField: (loc: (string | number)[], msg: string, input: unknown) => errors.validation([fieldError(loc, msg, input)]),
};
