import { Errors } from '@oclif/core';
import { errorReport } from '../../../../../src/adapters/shared/inbound/cli/error-report';
import { IdentityError } from '../../../../../src/domain/shared/errors';

const TASK_STATE = { name: 'task state', example: 'skiff task state --id web --json' };

describe('errorReport: one kind, one exit code and one line for every failure', () => {
  it('a flag given without its value (oclif throws a plain CLIError) is a usage error with the hint', () => {
    expect(errorReport(new Errors.CLIError('Flag --id expects a value'), TASK_STATE)).toEqual({
      kind: 'Usage',
      message:
        'Flag --id expects a value (see `skiff task state --help`; for example: skiff task state --id web --json)',
      exitCode: 2,
    });
  });

  it('a domain error keeps its kind and exit code; anything else is unexpected', () => {
    expect(errorReport(new IdentityError('not logged in', 'AUTH.X'), TASK_STATE)).toEqual({
      kind: 'Identity',
      message: 'not logged in',
      exitCode: 4,
    });
    expect(errorReport(new Error('boom\n    at x'))).toEqual({ kind: 'Internal', message: 'boom', exitCode: 1 });
  });
});
