import { Container, ContainerModule } from 'inversify';
import { AppConfig } from '../config/app-config';

/**
 * The composition root: the one place that binds ports to adapters. Modules are
 * loaded only for the parts `config` asks for, so the shim never loads the login
 * flow's adapters and a command never loads the runtimes. `overrides` (tests)
 * rebind what they replace.
 */
export function buildContainer(config: AppConfig, ...overrides: ContainerModule[]): Container {
  const container = new Container({ defaultScope: 'Singleton' });
  if (config.shim !== undefined) {
    const { shimModule } = require('./modules/shim.module') as typeof import('./modules/shim.module');
    container.loadSync(shimModule(config.shim));
  }
  if (config.taskClient === true || config.run === true) {
    const { taskClientModule } = require('./modules/task-client.module') as typeof import('./modules/task-client.module');
    container.loadSync(taskClientModule());
  }
  if (config.run === true) {
    const { runModule } = require('./modules/run.module') as typeof import('./modules/run.module');
    container.loadSync(runModule());
  }
  if (config.auth !== undefined) {
    const { authModule } = require('./modules/auth.module') as typeof import('./modules/auth.module');
    container.loadSync(authModule(config.auth));
  }
  if (overrides.length > 0) container.loadSync(...overrides);
  return container;
}
