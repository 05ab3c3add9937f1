// The connect module's errors, named once.
import { AppError, errors, fieldError } from '../../platform/errors.ts';

export const connectErrors = {
  templateExists: () => new AppError(409, 'Template already exists', { code: 'template_exists' }),
  siteHasAssets: () => new AppError(409, 'Site already has registered assets', { code: 'site_has_assets' }),
  alreadyConfirmed: () => new AppError(409, 'Mapping already confirmed', { code: 'mapping_already_confirmed' }),
  noMapping: () => new AppError(409, 'No mapping to confirm; report entities first or send one', { code: 'no_mapping' }),
  replayIdReused: (replayId: string) =>
    new AppError(409, `replay_id ${replayId} was already used at this site with different records`, { code: 'replay_id_conflict' }),
  field: (loc: (string | number)[], msg: string, input: unknown) => errors.validation([fieldError(['body', ...loc], msg, input)]),
};

export const CONNECT_ERROR_DOCS = [
  { code: 'template_exists', status: 409, description: 'An organisation template with this template_id already exists.' },
  { code: 'site_has_assets', status: 409, description: 'from-template: the site already has registered assets; onboard a new site id.' },
  { code: 'mapping_already_confirmed', status: 409, description: 'The onboarding mapping of this site was confirmed already; the clock stopped then.' },
  { code: 'no_mapping', status: 409, description: 'Home-automation connector: no mapping to confirm (no report and none sent).' },
  {
    code: 'asset_not_placeholder',
    status: 409,
    description: 'Confirm: the slot asset is no longer an onboarding placeholder without telemetry, so it cannot take a device id.',
  },
  {
    code: 'replay_id_conflict',
    status: 409,
    description: 'Buffer replay: the replay_id was used at this site before with different records; nothing was stored (a corrected upload takes a new id).',
  },
] as const;
