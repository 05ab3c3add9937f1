// The esg module's errors, named once.
import { AppError, errors, fieldError } from '../../platform/errors.ts';

export const esgErrors = {
  /** Production without ESG_SIGNING_KEY: no key is generated there. Not transient. */
  signingKeyNotConfigured: () => new AppError(503, 'Signing key not configured', { code: 'signing_key_not_configured' }),
  payloadTooDeep: (msg: string) => errors.validation([fieldError(['body', 'payload'], `Payload cannot be canonicalised: ${msg}`, null)]),
};
