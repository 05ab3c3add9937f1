// The flex module's errors, named once.
import { AppError, errors } from '../../platform/errors.ts';

export const FLEX_PROVIDER = 'Flexibility platform';

export const flexErrors = {
  /** The operator's platform is not wired for this environment: not transient, no Retry-After. */
  credentialsNotConfigured: () => new AppError(503, 'Credentials not configured', { code: 'credentials_not_configured' }),
  tenderPlatformIdRequired: (dno: string) => errors.badRequest(`tender_platform_id is required for offers to ${dno}`, 'tender_platform_id_required'),
  unknownReserveObject: (dno: string) => errors.badRequest(`reserve_object_id does not match an open tender of ${dno}`, 'unknown_reserve_object'),
  intervalInPast: () => errors.badRequest('Every interval must start in the future', 'interval_in_past'),
  intervalsOverlap: () => errors.badRequest('Intervals must not overlap', 'intervals_overlap'),
  offerRejected: () => errors.badRequest('Offer rejected by the flexibility platform', 'offer_rejected'),
  platform: () => errors.upstream(FLEX_PROVIDER),
  notEnrolled: () => errors.conflict('Site is not enrolled in the virtual power plant', 'site_not_enrolled'),
};
