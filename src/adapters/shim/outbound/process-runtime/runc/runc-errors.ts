import {
  AlreadyExistsError,
  DomainError,
  FailedPreconditionError,
  InternalError,
  InvalidArgumentError,
  NotFoundError,
} from '../../../../../domain/shared/errors';
import { RuncFailure } from './runc-cli';

/** What the shim was doing when runc failed: it decides which domain error runc's message means. */
export type RuncAction =
  | 'create'
  | 'start'
  | 'kill'
  | 'exec'
  | 'delete'
  | 'pause'
  | 'resume'
  | 'ps'
  | 'state'
  | 'stats'
  | 'update'
  | 'checkpoint'
  | 'restore';

const GONE = /container does not exist/i;
const FINISHED = /container not running|process already finished|no such process|container .* is stopped/i;
const EXISTS = /already exists|container with id exists/i;
/** The machine, not the bundle, is the problem: cgroups, resource limits, a busy device. */
const ENVIRONMENT =
  /cgroup|resource temporarily unavailable|device or resource busy|no space left|too many open files/i;
const BAD_VALUE = /invalid|cannot unmarshal|unknown|out of range|must be/i;

/**
 * Translates a runc failure into the domain's error at the adapter's edge: the kind
 * comes from what runc said, the message is runc's own, naming the subject. Kill's
 * rules are containerd's (pkg/process/utils.go, checkKillError).
 */
export function fromRuncFailure(err: unknown, action: RuncAction, subject: string): unknown {
  if (!(err instanceof RuncFailure)) return err;
  const said = `runc ${err.subcommand} failed: `;
  // runc 1.1 and later start their own message so: said once.
  const text = `${subject}: ${said}${err.message.startsWith(said) ? err.message.slice(said.length) : err.message}`;
  const code = `RUNC.${action.toUpperCase()}`;
  const make = (
    Kind: new (message: string, code: string, options?: { cause?: unknown }) => DomainError,
    message = text,
  ) => new Kind(message, code, { cause: err });
  if (GONE.test(err.message) && action !== 'create' && action !== 'restore') return make(NotFoundError);
  switch (action) {
    case 'kill':
      return FINISHED.test(err.message)
        ? make(NotFoundError, `cannot signal ${subject}: process already finished`)
        : make(FailedPreconditionError);
    case 'create':
    case 'restore':
    case 'exec':
      if (EXISTS.test(err.message)) return make(AlreadyExistsError);
      return ENVIRONMENT.test(err.message) ? make(FailedPreconditionError) : make(InvalidArgumentError);
    case 'update':
      return BAD_VALUE.test(err.message) ? make(InvalidArgumentError) : make(FailedPreconditionError);
    case 'checkpoint':
    case 'start':
    case 'pause':
    case 'resume':
      return make(FailedPreconditionError);
    default:
      return make(InternalError);
  }
}
