// The registry's own errors: named once, thrown by the service, rendered by the platform.
import { AppError, errors, fieldError } from '../../platform/errors.ts';

export const registryErrors = {
  duplicateAsset: () => new AppError(409, 'Asset already registered', { code: 'asset_exists' }),
  hasChildren: () => new AppError(409, 'Asset has child assets; move, re-link or delete them first', { code: 'asset_has_children' }),
  /** A rule on one body field that the schema cannot express. */
  field: (field: string, msg: string, input: unknown) => errors.validation([fieldError(['body', field], msg, input)]),
};
