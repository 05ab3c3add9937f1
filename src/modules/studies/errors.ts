// Plan studies' own errors: named once, thrown by the service, rendered by the platform.
import { errors, fieldError } from '../../platform/errors.ts';
import { declareErrors } from '../../platform/error-docs.ts';
import type { CsvError } from './catalogue.ts';

const declared = declareErrors({
  studyNotFound: { status: 404, detail: 'Study not found', code: 'study_not_found', doc: 'No study with this id in the organisation.' },
  runNotFound: { status: 404, detail: 'Run not found', code: 'run_not_found', doc: 'No run with this id in the study.' },
  inputNotFound: {
    status: 404,
    detail: (kind: string) => `Input not found: ${kind}`,
    code: 'study_input_not_found',
    doc: 'The study has no current input of this kind.',
  },
  missingInputs: {
    status: 409,
    detail: (kinds: string[]) => `Study is missing inputs: ${kinds.join(', ')}`,
    code: 'study_inputs_missing',
    doc: 'A run needs every input its study type takes.',
  },
  runNotFinished: {
    status: 409,
    detail: (status: string) => `Run has not succeeded (status ${status})`,
    code: 'study_run_not_succeeded',
    doc: 'Reports and proposal packs exist for succeeded runs only.',
  },
});

export const studyErrors = {
  ...declared.errors,
  kindNotUsed: (kind: string, type: string) => errors.validation([fieldError(['path', 'kind'], `${type} does not take the input ${kind}`, kind)]),
  csv: (errs: CsvError[]) =>
    errors.validation(
      errs.map((e) => fieldError(['body', 'csv'], `line ${e.line}${e.column ? `, column ${e.column}` : ''}: ${e.message}`, { line: e.line, column: e.column })),
    ),
};

export const STUDY_ERROR_DOCS = declared.docs;
