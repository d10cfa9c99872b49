import { ViewConfig } from '../../../application/login/contexts/view-config.use-case';
import { SkiffConfig } from '../../../domain/login/contexts/contexts';
import { AppCommand } from '../../login/inbound/cli/auth-command';

export default class ConfigView extends AppCommand {
  static override summary = 'Show the configuration file.';
  static override description =
    'Prints the contexts as stored in $XDG_CONFIG_HOME/skiff/config.yaml (it holds no secrets).';
  static override examples = ['<%= config.bin %> config view', '<%= config.bin %> config view --json'];
  static override enableJsonFlag = true;

  async run(): Promise<SkiffConfig> {
    await this.parse(ConfigView);
    const view = await this.resolve(ViewConfig).execute();
    this.log(`# ${view.location}`);
    this.log(view.text.trimEnd());
    return view.config;
  }
}
