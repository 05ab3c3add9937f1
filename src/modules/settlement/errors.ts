// The settlement module's errors, declared once (platform/error-docs.ts declareErrors).
import { errors, fieldError } from '../../platform/errors.ts';
import { declareErrors } from '../../platform/error-docs.ts';

const declared = declareErrors({
  /** Production without ESG_SIGNING_KEY (the service's receipt key): nothing can be signed. Not transient. */
  signingKeyNotConfigured: { status: 503, detail: 'Signing key not configured', code: 'signing_key_not_configured' },
});

export const settlementErrors = {
  ...declared.errors,
  invalid: (loc: string[], msg: string, input: unknown) => errors.validation([fieldError(loc, msg, input)]),
};
