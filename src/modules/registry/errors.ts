// The registry's own errors, declared once (platform/error-docs.ts declareErrors): thrown by the
// service, rendered by the platform.
import { errors, fieldError } from '../../platform/errors.ts';
import { declareErrors } from '../../platform/error-docs.ts';

const declared = declareErrors({
  duplicateAsset: {
    status: 409,
    detail: 'Asset already registered',
    code: 'asset_exists',
    doc: 'An asset with this asset_id is already registered in the organisation.',
  },
  hasChildren: {
    status: 409,
    detail: 'Asset has child assets; move, re-link or delete them first',
    code: 'asset_has_children',
    doc: 'The asset has child assets; move, re-link or delete them first.',
  },
});

export const registryErrors = {
  ...declared.errors,
  /** A rule on one body field that the schema cannot express. */
  field: (field: string, msg: string, input: unknown) => errors.validation([fieldError(['body', field], msg, input)]),
};

export const REGISTRY_ERROR_DOCS = declared.docs;
