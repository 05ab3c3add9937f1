// The settlement module's errors, named once.
import { AppError, errors, fieldError } from '../../platform/errors.ts';

export const settlementErrors = {
  /** Production without ESG_SIGNING_KEY (the service's receipt key): nothing can be signed. Not transient. */
  signingKeyNotConfigured: () => new AppError(503, 'Signing key not configured', { code: 'signing_key_not_configured' }),
  invalid: (loc: string[], msg: string, input: unknown) => errors.validation([fieldError(loc, msg, input)]),
};
