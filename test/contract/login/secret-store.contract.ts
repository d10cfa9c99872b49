import { SecretStore } from '../../../src/application/login/ports/secret-store.port';
import { ConfigurationError } from '../../../src/domain/shared/errors';

export interface SecretStoreSubject {
  readonly store: SecretStore;
  /**
   * Makes the keyring unreachable (absent or locked) until `cleanup`; absent for the OS
   * keyring, whose library keeps its D-Bus connection for the process: its own tests cover
   * an unreachable one in a process that never had one.
   */
  readonly makeUnavailable?: () => void;
  cleanup(): Promise<void>;
}

/** What every SecretStore does, run against the fake and the OS keyring (gnome-keyring in its own D-Bus session). */
export function secretStoreContract(
  name: string,
  make: () => Promise<SecretStoreSubject>,
  { unreachable }: { unreachable: boolean },
): void {
  describe(`${name} honours the SecretStore contract`, () => {
    let subject: SecretStoreSubject;
    // Accounts of this run only: a leftover of an earlier run cannot make a test pass.
    const prefix = `contract/${process.pid}/${Date.now()}`;
    beforeEach(async () => (subject = await make()));
    afterEach(() => subject.cleanup());

    it('keeps a secret by account; a missing one reads undefined', async () => {
      await expect(subject.store.get(`${prefix}/none`)).resolves.toBeUndefined();
      await subject.store.set(`${prefix}/a`, 'secret-a');
      await subject.store.set(`${prefix}/b`, 'secret-b');
      await expect(subject.store.get(`${prefix}/a`)).resolves.toBe('secret-a');
      await expect(subject.store.get(`${prefix}/b`)).resolves.toBe('secret-b');
    });

    it('replaces on set; delete: true when there was one, false after', async () => {
      await subject.store.set(`${prefix}/a`, 'first');
      await subject.store.set(`${prefix}/a`, 'second');
      await expect(subject.store.get(`${prefix}/a`)).resolves.toBe('second');
      await expect(subject.store.delete(`${prefix}/a`)).resolves.toBe(true);
      await expect(subject.store.delete(`${prefix}/a`)).resolves.toBe(false);
      await expect(subject.store.get(`${prefix}/a`)).resolves.toBeUndefined();
    });

    it('a part of the size the token cache uses, and any character, come back as they were', async () => {
      const part = `${'x'.repeat(1000)}é€😀"\\\n`;
      await subject.store.set(`${prefix}/part`, part);
      await expect(subject.store.get(`${prefix}/part`)).resolves.toBe(part);
      await subject.store.delete(`${prefix}/part`);
    });

    // Registered only where the subject can be made unreachable (see makeUnavailable).
    if (unreachable)
      it('unreachable: AUTH.KEYRING_UNAVAILABLE in one line naming `skiff config set --token-store file`, never the secret', async () => {
        (subject.makeUnavailable as () => void)();
        for (const call of [
          () => subject.store.set(`${prefix}/a`, 'never-shown-secret'),
          () => subject.store.get(`${prefix}/a`),
          () => subject.store.delete(`${prefix}/a`),
        ]) {
          const err = await call().catch((e: unknown) => e);
          expect(err).toBeInstanceOf(ConfigurationError);
          expect((err as ConfigurationError).code).toBe('AUTH.KEYRING_UNAVAILABLE');
          expect((err as Error).message).toMatch(
            /^the OS keyring is not available \(.+\): .*`skiff config set --token-store file`$/,
          );
          expect((err as Error).message).not.toContain('\n');
          expect((err as Error).message).not.toContain('never-shown-secret');
        }
      });
  });
}
