import { callbackPage } from '../../../../../src/adapters/login/outbound/callback-listener/callback-page';

describe('the callback page (SSO step 10)', () => {
  it('with a redirect target: a meta refresh after 1 second, a fallback link and the git token setup named', () => {
    const page = callbackPage({ kind: 'success', redirectTo: 'https://src.example.com/user/settings/applications' });
    expect(page.status).toBe(200);
    expect(page.html).toContain(
      '<meta http-equiv="refresh" content="1;url=https://src.example.com/user/settings/applications">',
    );
    expect(page.html).toContain('<a href="https://src.example.com/user/settings/applications">');
    expect(page.html).toMatch(/redirecting you to the git token setup/i);
  });

  it('without one: authentication succeeded and the tab can be closed, no refresh', () => {
    const page = callbackPage({ kind: 'success' });
    expect(page.html).toMatch(/authentication succeeded/i);
    expect(page.html).toMatch(/close this tab/i);
    expect(page.html).not.toContain('refresh');
  });

  it('escapes what it repeats', () => {
    expect(callbackPage({ kind: 'success', redirectTo: 'https://x/"><script>' }).html).not.toContain('<script>');
    expect(callbackPage({ kind: 'failure', reason: '<b>state mismatch</b>' }).html).toContain(
      '&#60;b&#62;state mismatch',
    );
    expect(callbackPage({ kind: 'failure', reason: 'x' }).status).toBe(400);
  });
});
