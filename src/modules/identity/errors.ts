// The identity module's errors, named once: status, safe detail, stable code.
import { AppError, fieldError, errors } from '../../platform/errors.ts';

export const identityErrors = {
  /** Wrong password, unknown email, disabled account: one answer, so none is told apart. */
  invalidCredentials: () => new AppError(401, 'Invalid email or password', { code: 'invalid_credentials' }),
  locked: () => new AppError(423, 'Account locked. Try again later.', { code: 'account_locked' }),
  organisationRequired: (orgIds: string[]) =>
    errors.validation([
      fieldError(
        ['body', 'organisation_id'],
        `Field required: this account belongs to several organisations (${orgIds.join(', ')}); send organisation_id`,
        null,
        'missing',
      ),
    ]),
  notAMember: () => new AppError(403, 'Not a member of this organisation', { code: 'not_a_member' }),
  noMembership: () => new AppError(403, 'This account belongs to no organisation', { code: 'no_membership' }),
  invalidRefresh: () => new AppError(401, 'Invalid or expired refresh token', { code: 'invalid_refresh_token' }),
  invalidInvitation: () => new AppError(401, 'Invalid or expired invitation', { code: 'invalid_invitation' }),
  /** SSO refusals carry an object detail: {error: 'sso_refused', reason, ...}. */
  ssoRefused: (status: 401 | 403 | 404, reason: string, extra: Record<string, unknown> = {}) =>
    new AppError(status, { error: 'sso_refused', reason, ...extra }, { code: 'sso_refused', message: `SSO refused: ${reason}` }),
  idpUnavailable: () => new AppError(502, 'Identity provider API error', { code: 'upstream_error' }),
};
