// Plan studies' own errors: named once, thrown by the service, rendered by the platform.
import { AppError, errors, fieldError } from '../../platform/errors.ts';
import type { CsvError } from './catalogue.ts';

export const studyErrors = {
  studyNotFound: () => new AppError(404, 'Study not found', { code: 'study_not_found' }),
  runNotFound: () => new AppError(404, 'Run not found', { code: 'run_not_found' }),
  inputNotFound: (kind: string) => new AppError(404, `Input not found: ${kind}`, { code: 'study_input_not_found' }),
  kindNotUsed: (kind: string, type: string) => errors.validation([fieldError(['path', 'kind'], `${type} does not take the input ${kind}`, kind)]),
  missingInputs: (kinds: string[]) => new AppError(409, `Study is missing inputs: ${kinds.join(', ')}`, { code: 'study_inputs_missing' }),
  runNotFinished: (status: string) => new AppError(409, `Run has not succeeded (status ${status})`, { code: 'study_run_not_succeeded' }),
  csv: (errs: CsvError[]) =>
    errors.validation(
      errs.map((e) => fieldError(['body', 'csv'], `line ${e.line}${e.column ? `, column ${e.column}` : ''}: ${e.message}`, { line: e.line, column: e.column })),
    ),
};

export const STUDY_ERROR_DOCS = [
  { code: 'study_not_found', status: 404, description: 'No study with this id in the organisation.' },
  { code: 'run_not_found', status: 404, description: 'No run with this id in the study.' },
  { code: 'study_input_not_found', status: 404, description: 'The study has no current input of this kind.' },
  { code: 'study_inputs_missing', status: 409, description: 'A run needs every input its study type takes.' },
  { code: 'study_run_not_succeeded', status: 409, description: 'Reports and proposal packs exist for succeeded runs only.' },
] as const;
