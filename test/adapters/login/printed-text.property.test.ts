import fc from 'fast-check';
import { DeviceLogin } from '../../../src/application/login/auth/device-login.use-case';
import { BrowserOpener } from '../../../src/application/login/auth/browser-opener';
import { HttpClient, HttpRequest } from '../../../src/adapters/login/helpers/http-client';
import { boardRows, gitTokenStoredLine, loggedInLine } from '../../../src/adapters/login/inbound/cli/login-text';
import { statusLines } from '../../../src/adapters/login/inbound/cli/status-text';
import { OidcDeviceAuthorization } from '../../../src/adapters/login/outbound/identity-provider/oidc-device-authorization';
import { OidcIdentityProvider } from '../../../src/adapters/login/outbound/identity-provider/oidc-identity-provider';
import { skiffTestbed } from '../../../src/infrastructure/login/testing/skiff-testbed';
import { escapedControls } from '../../../src/domain/shared/quoted';
import { PROPERTY_BUDGET } from '../../support/property';
import { waitFor } from '../../support/wait-for';

/**
 * Issue 41, finding 4: what an identity provider, a git host or a board tool sends reaches the
 * user's terminal in every field skiff prints, and a terminal acts on control bytes (ESC ] 0 sets
 * the title, ESC [ 2 J clears the screen, ESC ] 52 writes the clipboard, 0x9b is CSI on its own).
 * Each printed field is fed such bytes: none reaches the output raw.
 */

const CONTROLS = [
  ...Array.from({ length: 0x20 }, (_, i) => String.fromCharCode(i)),
  '\u007f',
  ...Array.from({ length: 0x20 }, (_, i) => String.fromCharCode(0x80 + i)),
];
const SEQUENCES = ['\u001b]0;pwned\u0007', '\u001b[2J', '\u001b]52;c;Y3VybCBldmlsIHwgc2g=\u0007', '\u009b2J', '\r\n'];
/** Printable text with control bytes and escape sequences anywhere in it. */
const hostile = fc
  .array(fc.oneof(fc.string(), fc.constantFrom(...CONTROLS), fc.constantFrom(...SEQUENCES)), { maxLength: 12 })
  .map((parts) => parts.join(''));

// eslint-disable-next-line no-control-regex -- control characters are what this looks for
const RAW_CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** No control character at all in a line of output. */
function expectNoControl(line: string): void {
  expect(line).not.toMatch(RAW_CONTROL);
}

/** A message whose template has its own newlines: exactly those, and no other control character. */
function expectOnlyTemplateNewlines(message: string, newlines: number): void {
  expect(message.split('\n')).toHaveLength(newlines + 1);
  expectNoControl(message.replace(/\n/g, ''));
}

describe('text from an identity provider, a git host or a board tool, as printed', () => {
  it('is one escaping: escapedControls leaves no control character and keeps the printable text', () => {
    fc.assert(
      fc.property(hostile, (text) => {
        const shown = escapedControls(text);
        expectNoControl(shown);
        if (!RAW_CONTROL.test(text) && !/[\u2028\u2029]/.test(text)) expect(shown).toBe(text);
      }),
      PROPERTY_BUDGET,
    );
  });

  it("the commands' lines: the e-mail of `Logged in as`, the git login, board ids and names, auth status's identity", () => {
    fc.assert(
      fc.property(hostile, hostile, hostile, hostile, (email, login, name, project) => {
        expectNoControl(loggedInLine('example.com', email));
        expectNoControl(gitTokenStoredLine(login));
        expectNoControl(gitTokenStoredLine(login, 'example.com'));
        for (const row of boardRows([{ id: name, name, project: { id: project, name: project } }])) {
          for (const cell of row) expectNoControl(cell);
        }
        for (const row of boardRows([{ id: '1', name: 'b', project: { id: project, name: '' } }])) {
          for (const cell of row) expectNoControl(cell);
        }
        const status = statusLines({
          loggedIn: true,
          identity: email,
          expired: false,
          expiresAt: '2026-01-01T00:00:00Z',
          refreshOnNextUse: false,
          domain: 'example.com',
          gitToken: true,
          scopes: null,
          signIn: 'person',
          tokenStore: { kind: 'file', path: '/home/u/.local/share/skiff/auth/example.com.json' },
        });
        for (const line of status) expectNoControl(line);
      }),
      PROPERTY_BUDGET,
    );
  });

  it('a URL shown to be opened (the authorization URL from discovery, the device flow’s with the code)', async () => {
    await fc.assert(
      fc.asyncProperty(hostile, async (url) => {
        const h = skiffTestbed();
        await h.get(BrowserOpener).show(url, 'Open this URL:', false);
        expectOnlyTemplateNewlines(h.notifier.infos.join('\n'), 3);
      }),
      { ...PROPERTY_BUDGET, numRuns: 100 },
    );
  });

  it('the device flow: the user_code and verification_uri, printed before the first poll', async () => {
    await fc.assert(
      fc.asyncProperty(hostile, hostile, async (userCode, uri) => {
        const h = skiffTestbed();
        h.provider.metadata = { ...h.provider.metadata, deviceAuthorizationEndpoint: 'https://auth.example.com/d' };
        h.device.code = {
          ...h.device.code,
          userCode,
          verificationUri: `https://auth.example.com/${uri}`,
          verificationUriComplete: undefined,
        };
        h.device.polls = [{ outcome: 'denied' }];
        const done = h
          .get(DeviceLogin)
          .execute({ target: {}, openBrowser: false })
          .catch((err: unknown) => err);
        await waitFor('the first sleep', () => h.clock.pendingSleeps === 1);
        h.clock.advance(5000);
        await done;
        const shown = h.notifier.infos.find((line) => line.startsWith('On any device'));
        expect(shown).toBeDefined();
        expectOnlyTemplateNewlines(shown as string, 3);
        for (const line of h.notifier.infos) expect(line).not.toContain('\u001b');
      }),
      { ...PROPERTY_BUDGET, numRuns: 50 },
    );
  });

  /** An HttpClient that answers every request with this JSON. */
  const answering = (body: unknown): HttpClient =>
    ({
      send: async (_request: HttpRequest) => ({
        status: 200,
        body: JSON.stringify(body),
        contentType: 'application/json',
      }),
    }) as unknown as HttpClient;

  it('the URLs of a device reply and of discovery come out as the checked URL, with no control character left', async () => {
    await fc.assert(
      fc.asyncProperty(hostile, hostile, async (path, query) => {
        const raw = `https://auth.example.com/${path}?${query}`;
        let checked: string | undefined;
        try {
          checked = new URL(raw).href;
        } catch {
          checked = undefined;
        }
        const device = new OidcDeviceAuthorization(
          answering({
            device_code: 'd',
            user_code: 'U',
            verification_uri: raw,
            verification_uri_complete: raw,
            expires_in: 60,
          }),
        );
        const code = await device
          .start('https://auth.example.com/device', 'skiff-cli', 'openid')
          .catch(() => undefined);
        const metadata = await new OidcIdentityProvider(
          answering({ issuer: 'https://auth.example.com', authorization_endpoint: raw, token_endpoint: raw }),
        )
          .discover('https://auth.example.com')
          .catch(() => undefined);
        if (checked === undefined) {
          expect(code).toBeUndefined();
          expect(metadata).toBeUndefined();
          return;
        }
        expect(code?.verificationUri).toBe(checked);
        expect(code?.verificationUriComplete).toBe(checked);
        expect(metadata?.authorizationEndpoint).toBe(checked);
        expectNoControl(checked);
      }),
      PROPERTY_BUDGET,
    );
  });
});
