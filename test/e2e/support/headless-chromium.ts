import { ChildProcess, spawn } from 'node:child_process';
import { freePort } from './stand-ins';

/** The browser and its driver the end-to-end tests use, found where Debian installs them. */
export const CHROMIUM = process.env.SKIFF_CHROMIUM ?? '/usr/bin/chromium';
const CHROMEDRIVER = process.env.SKIFF_CHROMEDRIVER ?? '/usr/bin/chromedriver';

interface WebDriverReply {
  value: unknown;
}

/**
 * Headless Chromium driven through chromedriver's W3C WebDriver HTTP API (loopback
 * only): just what the tests need to play a user at a provider's pages.
 */
export class HeadlessChromium {
  private constructor(
    private readonly driver: ChildProcess,
    private readonly base: string,
    private readonly session: string,
  ) {}

  static async start(): Promise<HeadlessChromium> {
    const port = await freePort();
    const driver = spawn(CHROMEDRIVER, [`--port=${port}`, '--allowed-ips=127.0.0.1'], { stdio: 'ignore' });
    const base = `http://127.0.0.1:${port}`;
    for (let i = 0; ; i++) {
      try {
        const status = (await call(base, 'GET', '/status')) as { ready?: boolean };
        if (status.ready) break;
      } catch (err) {
        if (i > 100) throw err;
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const created = (await call(base, 'POST', '/session', {
      capabilities: {
        alwaysMatch: {
          browserName: 'chrome',
          'goog:chromeOptions': {
            binary: CHROMIUM,
            args: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run'],
          },
        },
      },
    })) as { sessionId: string };
    return new HeadlessChromium(driver, base, created.sessionId);
  }

  private command(method: string, path: string, body?: unknown): Promise<unknown> {
    return call(this.base, method, `/session/${this.session}${path}`, body);
  }

  open(url: string): Promise<unknown> {
    return this.command('POST', '/url', { url });
  }

  async title(): Promise<string> {
    return (await this.command('GET', '/title')) as string;
  }

  /** The first element matching `css`, or undefined. */
  async find(css: string): Promise<string | undefined> {
    const found = (await this.command('POST', '/elements', { using: 'css selector', value: css })) as Array<
      Record<string, string>
    >;
    return found.length === 0 ? undefined : Object.values(found[0])[0];
  }

  click(element: string): Promise<unknown> {
    return this.command('POST', `/element/${element}/click`, {});
  }

  type(element: string, text: string): Promise<unknown> {
    return this.command('POST', `/element/${element}/value`, { text });
  }

  async stop(): Promise<void> {
    await this.command('DELETE', '').catch(() => undefined);
    const exited = new Promise((resolve) => this.driver.once('exit', resolve));
    this.driver.kill('SIGTERM');
    await exited;
  }
}

async function call(base: string, method: string, path: string, body?: unknown): Promise<unknown> {
  const reply = await fetch(`${base}${path}`, {
    method,
    headers: { 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await reply.json()) as WebDriverReply;
  if (!reply.ok) throw new Error(`WebDriver ${method} ${path}: ${JSON.stringify(json.value).slice(0, 300)}`);
  return json.value;
}

/**
 * Plays the user at oidc-provider's device pages in the browser: opens the URI that
 * carries the code, confirms it, signs in as `login`, consents; resolves with the title
 * of the page that ends it.
 */
export async function approveDeviceInChromium(
  browser: HeadlessChromium,
  uri: string,
  login = 'alice',
): Promise<string> {
  await browser.open(uri);
  for (let step = 0; step < 100; step++) {
    const title = await browser.title();
    if (title === 'Sign-in Success') return title;
    const field = await browser.find('input[name=login]');
    if (field !== undefined) {
      await browser.type(field, login);
      await browser.type((await browser.find('input[name=password]')) as string, 'any');
    }
    const button =
      title === 'Device Login Confirmation' || field !== undefined || (await browser.find('input[name=prompt]'))
        ? await browser.find('button[autofocus], button[type=submit]')
        : undefined;
    if (button !== undefined) await browser.click(button).catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the device pages did not end in the browser (last page: ${await browser.title()})`);
}
