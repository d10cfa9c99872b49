import { GitCredential } from '../../../../src/application/login/auth/git-credential.use-case';
import { skiffTestbed } from '../../../../src/infrastructure/login/testing/skiff-testbed';

describe('git credential helper (get for another host)', () => {
  it('answers nothing and says which host it serves, the asked host one line whatever it holds', async () => {
    const h = skiffTestbed();
    const reply = await h.get(GitCredential).execute({
      target: {},
      operation: 'get',
      request: 'protocol=https\nhost=evil.example\u001b[2J\u2028forged line\n\n',
    });
    expect(reply).toBe('');
    const notice = h.notifier.all;
    expect(notice).toContain('skiff: no credential for https://evil.example\\u001b[2J\\u2028forged line: ');
    expect(notice).toContain('skiff answers for https://src.example.com only');
    expect([notice.includes('\u001b'), notice.includes('\u2028')]).toEqual([false, false]);
  });
});
