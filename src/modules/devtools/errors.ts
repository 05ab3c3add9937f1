// The developer platform's own errors, declared once (platform/error-docs.ts declareErrors).
import { errors, fieldError } from '../../platform/errors.ts';
import { declareErrors } from '../../platform/error-docs.ts';

const declared = declareErrors({
  keyNotActive: {
    status: 409,
    detail: (status: string) => `API key is ${status}; only an active key can be rotated`,
    code: 'api_key_not_active',
    doc: 'Only an active API key can be rotated.',
  },
  endpointDisabled: {
    status: 409,
    detail: 'Webhook endpoint is disabled; re-enable it first',
    code: 'webhook_endpoint_disabled',
    doc: 'The webhook endpoint is disabled; re-enable it first.',
  },
  sandboxOnlyEventType: {
    status: 400,
    detail: (type: string) => `event_type ${type} is sent from the sandbox only; a live endpoint accepts webhook.test`,
    code: 'sandbox_only_event_type',
    doc: 'Event types other than webhook.test are sent from the sandbox only.',
  },
  eventNotFound: { status: 404, detail: 'Not Found', code: 'event_not_found', doc: 'No retained event with this id for the endpoint.' },
  idempotencyConflict: {
    status: 409,
    detail: 'Idempotency-Key was already used with a different request',
    code: 'idempotency_conflict',
    doc: 'The Idempotency-Key was already used with a different request.',
  },
  idempotencyInProgress: {
    status: 409,
    detail: 'A request with this Idempotency-Key is still being processed',
    code: 'idempotency_in_progress',
    doc: 'A request with this Idempotency-Key is still being processed.',
  },
  sandboxBacklogFull: {
    status: 429,
    detail: (pending: number, adding: number, max: number) =>
      `${pending} sandbox deliveries are still pending and this send would add ${adding}; at most ${max} may be pending. ` +
      'Wait for them to be delivered, or disable the sandbox endpoints that do not answer.',
    code: 'sandbox_backlog_full',
    headers: { 'Retry-After': '60' },
  },
});

export const devtoolsErrors = {
  ...declared.errors,
  invalidField: (loc: (string | number)[], msg: string, input: unknown) => errors.validation([fieldError(loc, msg, input)]),
};

export const DEVTOOLS_ERROR_DOCS = declared.docs;
