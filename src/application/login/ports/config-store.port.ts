import { SkiffConfig } from '../../../domain/login/contexts/contexts';

export const CONFIG_STORE = Symbol('ConfigStore');

/** The contexts file. A missing file is the empty configuration. */
export interface ConfigStore {
  load(): Promise<SkiffConfig>;
  save(config: SkiffConfig): Promise<void>;
  location(): string;
  /** The configuration as the file holds it (for `config view`). */
  render(config: SkiffConfig): string;
}
