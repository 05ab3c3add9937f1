// The flex module's errors, declared once (platform/error-docs.ts declareErrors).
import { errors } from '../../platform/errors.ts';
import { declareErrors } from '../../platform/error-docs.ts';

export const FLEX_PROVIDER = 'Flexibility platform';

const declared = declareErrors({
  /** The operator's platform is not wired for this environment: not transient, no Retry-After. */
  credentialsNotConfigured: {
    status: 503,
    detail: 'Credentials not configured',
    code: 'credentials_not_configured',
    doc: 'The flexibility platform is not wired for this environment; not transient.',
  },
  tenderPlatformIdRequired: {
    status: 400,
    detail: (dno: string) => `tender_platform_id is required for offers to ${dno}`,
    code: 'tender_platform_id_required',
  },
  unknownReserveObject: { status: 400, detail: (dno: string) => `reserve_object_id does not match an open tender of ${dno}`, code: 'unknown_reserve_object' },
  intervalInPast: { status: 400, detail: 'Every interval must start in the future', code: 'interval_in_past' },
  intervalsOverlap: { status: 400, detail: 'Intervals must not overlap', code: 'intervals_overlap' },
  offerRejected: { status: 400, detail: 'Offer rejected by the flexibility platform', code: 'offer_rejected' },
  notEnrolled: { status: 409, detail: 'Site is not enrolled in the virtual power plant', code: 'site_not_enrolled' },
});

export const flexErrors = {
  ...declared.errors,
  platform: () => errors.upstream(FLEX_PROVIDER),
};

export const FLEX_ERROR_DOCS = declared.docs;
