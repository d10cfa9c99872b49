import { CallbackOutcome } from '../../../../application/login/ports/callback-listener.port';

/** The page the browser shows after the callback (SSO step 10 of docs/login-contract.md). */
export interface CallbackPage {
  readonly status: 200 | 400;
  readonly html: string;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function page(title: string, body: string, head = ''): string {
  return (
    `<!DOCTYPE html><html><head><meta charset="utf-8"><title>${title}</title>${head}</head>` +
    `<body style="font-family:sans-serif;margin:3em"><h1>${title}</h1>${body}</body></html>`
  );
}

/** The page that says `outcome`: 200 on success, 400 on failure. */
export function callbackPage(outcome: CallbackOutcome): CallbackPage {
  return outcome.kind === 'success' ? successPage(outcome.redirectTo) : failurePage(outcome.reason);
}

/**
 * With a redirect target (`auth login`): a meta refresh after 1 second to it and a
 * fallback link, saying the user is being redirected to the git token setup.
 * Without one (`auth sso`): authentication succeeded, the tab can be closed.
 */
function successPage(redirectTo?: string): CallbackPage {
  if (redirectTo === undefined) {
    return {
      status: 200,
      html: page('skiff: authentication succeeded', '<p>You can close this tab and return to the terminal.</p>'),
    };
  }
  const url = escapeHtml(redirectTo);
  return {
    status: 200,
    html: page(
      'skiff: signed in',
      `<p>Redirecting you to the git token setup...</p><p>If nothing happens, <a href="${url}">open the git token page</a>.</p>`,
      `<meta http-equiv="refresh" content="1;url=${url}">`,
    ),
  };
}

/** A callback that failed the checks of SSO step 9: the reason, without any token. */
function failurePage(reason: string): CallbackPage {
  return {
    status: 400,
    html: page('skiff: sign-in failed', `<p>${escapeHtml(reason)}</p><p>Return to the terminal.</p>`),
  };
}
