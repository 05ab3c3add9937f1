// The settlement module's errors, declared once (platform/error-docs.ts declareErrors).
import { declareErrors } from '../../platform/error-docs.ts';

export const settlementErrors = declareErrors({
  /** Production without ESG_SIGNING_KEY (the service's receipt key): nothing can be signed. Not transient. */
  signingKeyNotConfigured: { status: 503, detail: 'Signing key not configured', code: 'signing_key_not_configured' },
}).errors;
