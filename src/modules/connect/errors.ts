// The connect module's errors, declared once (platform/error-docs.ts declareErrors).
import { declareErrors } from '../../platform/error-docs.ts';

export const { errors: connectErrors, docs: CONNECT_ERROR_DOCS } = declareErrors(
  {
    templateExists: {
      status: 409,
      detail: 'Template already exists',
      code: 'template_exists',
      doc: 'An organisation template with this template_id already exists.',
    },
    siteHasAssets: {
      status: 409,
      detail: 'Site already has registered assets',
      code: 'site_has_assets',
      doc: 'from-template: the site already has registered assets; onboard a new site id.',
    },
    alreadyConfirmed: {
      status: 409,
      detail: 'Mapping already confirmed',
      code: 'mapping_already_confirmed',
      doc: 'The onboarding mapping of this site was confirmed already; the clock stopped then.',
    },
    noMapping: {
      status: 409,
      detail: 'No mapping to confirm; report entities first or send one',
      code: 'no_mapping',
      doc: 'Home-automation connector: no mapping to confirm (no report and none sent).',
    },
    // Raised by the registry's sites service when the onboarding confirm names a slot asset.
    assetNotPlaceholder: {
      status: 409,
      code: 'asset_not_placeholder',
      doc: 'Confirm: the slot asset is no longer an onboarding placeholder without telemetry, so it cannot take a device id.',
    },
    replayIdReused: {
      status: 409,
      detail: (replayId: string) => `replay_id ${replayId} was already used at this site with different records`,
      code: 'replay_id_conflict',
      doc: 'Buffer replay: the replay_id was used at this site before with different records; nothing was stored (a corrected upload takes a new id).',
    },
  },
  { fieldsIn: 'body' },
);
