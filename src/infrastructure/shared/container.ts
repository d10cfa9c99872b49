import { Container, ContainerModule } from 'inversify';
import { AppConfig } from './app-config';

/**
 * The composition root: the one place that binds ports to adapters. Modules are
 * loaded only for the parts `config` asks for, so the shim never loads the login
 * flow's adapters and a command never loads the runtimes. Use cases and other
 * injectable classes are built on first request (autobind, one instance each).
 * `overrides` (tests) rebind what they replace.
 */
export function buildContainer(config: AppConfig, ...overrides: ContainerModule[]): Container {
  const container = new Container({ defaultScope: 'Singleton', autobind: true });
  if (config.shim !== undefined) {
    const { shimModule } = require('../shim/shim.module') as typeof import('../shim/shim.module');
    container.loadSync(shimModule(config.shim));
  }
  if (config.taskClient === true || config.run === true) {
    const { taskClientModule } = require('../shim/task-client.module') as typeof import('../shim/task-client.module');
    container.loadSync(taskClientModule());
  }
  if (config.run === true) {
    const { runModule } = require('../shim/run.module') as typeof import('../shim/run.module');
    container.loadSync(runModule());
  }
  if (config.login !== undefined) {
    const { loginModule } = require('../login/login.module') as typeof import('../login/login.module');
    container.loadSync(loginModule(config.login));
  }
  const rebound = [...overrides, ...embedded];
  if (rebound.length > 0) container.loadSync(...rebound);
  return container;
}

let embedded: readonly ContainerModule[] = [];

/**
 * Tests that embed the application (skiff-cli/testing) run a command as it is, and the
 * command builds its container here like any other: `modules` (fakes rebinding the
 * ports) are loaded into every container built until the returned function is called.
 */
export function embedModules(...modules: ContainerModule[]): () => void {
  const before = embedded;
  embedded = [...before, ...modules];
  return () => {
    embedded = before;
  };
}
