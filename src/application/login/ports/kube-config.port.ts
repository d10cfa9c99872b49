import { KubeUser } from '../../../domain/login/kube/kube-user';

export const KUBE_CONFIG = Symbol('KubeConfig');

export type KubeConfigChange = 'added' | 'updated' | 'unchanged';

/**
 * The kubeconfig kubectl would use ($KUBECONFIG, else ~/.kube/config). Edits keep
 * everything else in the file as it was (comments, order, other entries).
 */
export interface KubeConfig {
  /** Adds the `users` entry named `user.name`, or replaces it; the file written and what changed. */
  upsertUser(user: KubeUser): Promise<{ readonly path: string; readonly change: KubeConfigChange }>;
  /** The entry as it reads in the file (YAML). */
  render(user: KubeUser): string;
}
