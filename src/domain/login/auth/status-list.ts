import { safeDomain } from './safe-domain';
import { StatusReport } from './status-report';

/** One domain of `auth status` without --domain: its report, and whether it is the active one. */
export type DomainStatus = StatusReport & {
  /** The record's domain when it can be read, else the name of its file (`default`: no domain). */
  readonly name: string;
  readonly active: boolean;
};

/**
 * Every domain with a cache, the active one first (listed even without a cache, so the
 * list always says where commands sign in), the others by name.
 */
export function statusList(
  active: string,
  entries: ReadonlyArray<{ readonly file: string; readonly report: StatusReport }>,
): DomainStatus[] {
  const activeFile = safeDomain(active);
  const named = (file: string, report: StatusReport): string =>
    report.loggedIn && report.domain !== '' ? report.domain : file === activeFile && active !== '' ? active : file;
  const list = entries.map(({ file, report }) => ({
    name: named(file, report),
    active: file === activeFile,
    ...report,
  }));
  return [...list.filter((d) => d.active), ...list.filter((d) => !d.active)];
}
