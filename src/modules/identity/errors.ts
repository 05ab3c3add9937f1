// The identity module's errors, declared once (platform/error-docs.ts declareErrors): status, safe
// detail, stable code and, for the error page, what each means.
import { AppError, fieldError, errors } from '../../platform/errors.ts';
import { declareErrors } from '../../platform/error-docs.ts';

const declared = declareErrors({
  /** Wrong password, unknown email, disabled account: one answer, so none is told apart. */
  invalidCredentials: {
    status: 401,
    detail: 'Invalid email or password',
    code: 'invalid_credentials',
    doc: 'Wrong email or password (unknown emails are answered the same way).',
  },
  locked: {
    status: 423,
    detail: 'Account locked. Try again later.',
    code: 'account_locked',
    doc: 'Five consecutive failed sign-ins lock the account for 15 minutes.',
  },
  invalidRefresh: {
    status: 401,
    detail: 'Invalid or expired refresh token',
    code: 'invalid_refresh_token',
    doc: 'The refresh token is unknown, used, revoked or expired.',
  },
  invalidInvitation: {
    status: 401,
    detail: 'Invalid or expired invitation',
    code: 'invalid_invitation',
    doc: 'The invitation token is unknown, used, withdrawn or expired.',
  },
  noMembership: { status: 403, detail: 'This account belongs to no organisation', code: 'no_membership', doc: 'The account belongs to no organisation.' },
  notAMember: {
    status: 403,
    detail: 'Not a member of this organisation',
    code: 'not_a_member',
    doc: 'The account is not a member of the organisation asked for.',
  },
  idpUnavailable: { status: 502, detail: 'Identity provider API error', code: 'upstream_error' },
});

export const identityErrors = {
  ...declared.errors,
  organisationRequired: (orgIds: string[]) =>
    errors.validation([
      fieldError(
        ['body', 'organisation_id'],
        `Field required: this account belongs to several organisations (${orgIds.join(', ')}); send organisation_id`,
        null,
        'missing',
      ),
    ]),
  /** SSO refusals carry an object detail: {error: 'sso_refused', reason, ...}. */
  ssoRefused: (status: 401 | 403 | 404, reason: string, extra: Record<string, unknown> = {}) =>
    new AppError(status, { error: 'sso_refused', reason, ...extra }, { code: 'sso_refused', message: `SSO refused: ${reason}` }),
};

export const IDENTITY_ERROR_DOCS = declared.docs;
