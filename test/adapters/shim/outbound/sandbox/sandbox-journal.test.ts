import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  BundleSandboxJournal,
  SANDBOX_RECORD_FILE,
  SANDBOXES_DIR,
} from '../../../../../src/adapters/shim/outbound/sandbox/bundle-sandbox-journal';
import { FakeSandboxJournal } from '../../../../../src/adapters/fakes/shim/fake-sandbox-journal';
import { aSandboxRecord, sandboxJournalContract } from '../../../../contract/sandbox-journal.contract';

sandboxJournalContract('FakeSandboxJournal', () => {
  const journal = new FakeSandboxJournal();
  return {
    journal,
    bundleOf: (id) => `/run/containerd/${SANDBOXES_DIR}/k8s.io/${id}`,
    corrupt(id) {
      journal.records.delete(id);
      journal.problems.push(`skipped the record of ${id}: damaged`);
    },
    cleanup: () => undefined,
  };
});

/** A containerd state dir with the sandbox controller's bundles of k8s.io, and skiff's state dir beside. */
function containerdState(): { state: string; sandboxes: string; journal: BundleSandboxJournal } {
  const state = mkdtempSync(join(tmpdir(), 'skiff-sandbox-journal-'));
  const sandboxes = join(state, SANDBOXES_DIR, 'k8s.io');
  mkdirSync(sandboxes, { recursive: true });
  return { state, sandboxes, journal: BundleSandboxJournal.ofStateDir(join(state, 'skiff', 'k8s.io'), 'k8s.io') };
}

sandboxJournalContract('BundleSandboxJournal', () => {
  const { state, sandboxes, journal } = containerdState();
  const bundleOf = (id: string) => {
    mkdirSync(join(sandboxes, id), { recursive: true });
    return join(sandboxes, id);
  };
  return {
    journal,
    bundleOf,
    corrupt: (id) => writeFileSync(join(sandboxes, id, SANDBOX_RECORD_FILE), '{"id":"'),
    cleanup: () => rmSync(state, { recursive: true, force: true }),
  };
});

describe('BundleSandboxJournal on disk', () => {
  let where: ReturnType<typeof containerdState>;
  beforeEach(() => {
    where = containerdState();
  });
  afterEach(() => rmSync(where.state, { recursive: true, force: true }));
  const bundle = (id: string) => {
    mkdirSync(join(where.sandboxes, id));
    return join(where.sandboxes, id);
  };

  it('writes the record into the sandbox bundle, 0600, leaving no temp file', () => {
    const dir = bundle('p1');
    where.journal.save(aSandboxRecord('p1', dir));
    expect(statSync(join(dir, SANDBOX_RECORD_FILE)).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir)).toEqual([SANDBOX_RECORD_FILE]);
    expect(JSON.parse(readFileSync(join(dir, SANDBOX_RECORD_FILE), 'utf8'))).toMatchObject({ id: 'p1', pid: 4321 });
  });

  it('never writes through a link planted at the record or at its temp file', () => {
    const dir = bundle('p1');
    const victim = join(where.state, 'victim');
    writeFileSync(victim, 'keep me');
    symlinkSync(victim, join(dir, SANDBOX_RECORD_FILE));
    symlinkSync(victim, join(dir, `.${SANDBOX_RECORD_FILE}.${process.pid}.tmp`));
    where.journal.save(aSandboxRecord('p1', dir));
    expect(readFileSync(victim, 'utf8')).toBe('keep me');
    expect(lstatSync(join(dir, SANDBOX_RECORD_FILE)).isFile()).toBe(true);
  });

  it('reads no record through a link, and says so', () => {
    const dir = bundle('p1');
    const elsewhere = join(where.state, 'elsewhere.json');
    writeFileSync(elsewhere, '{}');
    symlinkSync(elsewhere, join(dir, SANDBOX_RECORD_FILE));
    const { records, problems } = where.journal.readAll();
    expect(records).toEqual([]);
    expect(problems).toEqual([expect.stringContaining(`skipped ${join(dir, SANDBOX_RECORD_FILE)}`)]);
  });

  it('a bundle with no record (created, never started) is no problem; a record naming another sandbox is one', () => {
    bundle('created');
    const dir = bundle('p2');
    where.journal.save(aSandboxRecord('p1', dir));
    const { records, problems } = where.journal.readAll();
    expect(records).toEqual([]);
    expect(problems).toEqual([expect.stringContaining('it names sandbox "p1", not its bundle\'s')]);
  });

  it('no sandbox bundles yet: nothing to read', () => {
    rmSync(join(where.state, SANDBOXES_DIR), { recursive: true });
    expect(where.journal.readAll()).toEqual({ records: [], problems: [] });
  });
});
