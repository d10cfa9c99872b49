import { delimiter, isAbsolute, join } from 'node:path';

/**
 * The kubeconfig files kubectl reads: $KUBECONFIG (a list, empty parts skipped), else
 * ~/.kube/config.
 */
export function kubeConfigFiles(env: NodeJS.ProcessEnv = process.env): string[] {
  const listed = (env.KUBECONFIG ?? '').split(delimiter).filter((file) => file !== '');
  if (listed.length > 0) return listed;
  const home = env.HOME !== undefined && isAbsolute(env.HOME) ? env.HOME : require('node:os').homedir();
  return [join(home as string, '.kube', 'config')];
}
