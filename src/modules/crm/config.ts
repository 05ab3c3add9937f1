// CRM settings: where public leads go and how many an address may send.
import { configSection, type SettingsOf } from '../../core/config-section.ts';

export const crmConfig = configSection('crm', (r) => ({
  /** The one organisation public capacity-check requests become leads of; unset: intake answers 503. */
  intakeOrgId: r.optional('CRM_INTAKE_ORG_ID'),
  /** Requests a source address may send to the intake form per hour. */
  intakePerHourPerAddress: r.int('CRM_INTAKE_PER_HOUR', 5, 1, 10_000),
}));

export type CrmConfig = SettingsOf<typeof crmConfig>;
