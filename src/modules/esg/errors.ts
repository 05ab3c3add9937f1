// The esg module's errors, declared once (platform/error-docs.ts declareErrors).
import { errors, fieldError } from '../../platform/errors.ts';
import { declareErrors } from '../../platform/error-docs.ts';

const declared = declareErrors({
  /** Production without ESG_SIGNING_KEY: no key is generated there. Not transient. */
  signingKeyNotConfigured: {
    status: 503,
    detail: 'Signing key not configured',
    code: 'signing_key_not_configured',
    doc: 'No signing key is configured for this environment.',
  },
});

export const esgErrors = {
  ...declared.errors,
  payloadTooDeep: (msg: string) => errors.validation([fieldError(['body', 'payload'], `Payload cannot be canonicalised: ${msg}`, null)]),
};

export const ESG_ERROR_DOCS = declared.docs;
