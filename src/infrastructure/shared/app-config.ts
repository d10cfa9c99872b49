import type { LoginModuleConfig } from '../login/login.module';
import type { ShimModuleConfig } from '../shim/shim.module';

/** What a process of skiff needs wired: the shim, or the parts a command uses. */
export interface AppConfig {
  readonly shim?: ShimModuleConfig;
  /** The client side of the shim: `skiff task ...` and `skiff run`. */
  readonly taskClient?: boolean;
  /** `skiff run`: a background shim and the user's terminal. */
  readonly run?: boolean;
  /** The login flow, contexts and boards (`skiff auth|config|boards ...`). */
  readonly login?: LoginModuleConfig;
}
