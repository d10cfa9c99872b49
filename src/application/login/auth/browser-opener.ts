import { inject, injectable } from 'inversify';
import { escapedControls } from '../../../domain/shared/quoted';
import { BROWSER, type Browser } from '../ports/browser.port';
import { NOTIFIER, type Notifier } from '../ports/notifier.port';

/**
 * Shows a URL: always printed (headless and remote machines), then opened in a
 * browser unless --no-browser. A browser that fails to start is never fatal.
 */
@injectable()
export class BrowserOpener {
  constructor(
    @inject(BROWSER) private readonly browser: Browser,
    @inject(NOTIFIER) private readonly notifier: Notifier,
  ) {}

  async show(url: string, lead: string, open: boolean): Promise<void> {
    // A URL with parts from a provider's discovery or device reply: printed escaped (quoted.ts).
    this.notifier.info(`${lead}\n\n  ${escapedControls(url)}\n`);
    if (open && !(await this.browser.open(url))) {
      this.notifier.info('(No browser could be started: open the URL above yourself.)');
    }
  }
}
