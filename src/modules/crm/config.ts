// CRM settings: where public leads go and how many an address may send.
import type { ConfigSection } from '../../core/config-section.ts';

export interface CrmConfig {
  /** The one organisation public capacity-check requests become leads of; unset: intake answers 503. */
  intakeOrgId: string | undefined;
  /** Requests a source address may send to the intake form per hour. */
  intakePerHourPerAddress: number;
}

export const crmConfig: ConfigSection<CrmConfig> = {
  name: 'crm',
  read: (r) => ({
    intakeOrgId: r.optional('CRM_INTAKE_ORG_ID'),
    intakePerHourPerAddress: r.int('CRM_INTAKE_PER_HOUR', 5, 1, 10_000),
  }),
};
