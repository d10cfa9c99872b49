import { execFile } from 'node:child_process';
import { ConfigurationError } from '../../../../domain/shared/errors';
import { GitConfig } from '../../../../application/login/ports/git-config.port';

function git(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('git', args, { timeout: 15_000 }, (err, stdout, stderr) => {
      if (err === null) return resolve(stdout);
      const why =
        (err as NodeJS.ErrnoException).code === 'ENOENT'
          ? 'git is not installed (or not on the PATH)'
          : stderr.trim().split('\n')[0] || err.message;
      reject(new ConfigurationError(`cannot configure git: ${why}`, 'GIT.CONFIG'));
    });
  });
}

/**
 * Git's own `git config --global`, run with an argument array (never a shell), so git
 * decides which file is global and keeps its format, locking and includes.
 */
export class GitCliConfig implements GitConfig {
  async setCredentialHelper(origin: string, helper: string): Promise<string> {
    const key = `credential.${origin}.helper`;
    // As `gh auth setup-git` does: the empty value clears helpers configured for every
    // host (a store or cache helper must not also keep a copy of the token).
    await git(['config', '--global', '--replace-all', key, '']);
    await git(['config', '--global', '--add', key, helper]);
    const origins = await git(['config', '--global', '--show-origin', '--get-all', key]);
    return origins
      .split('\n')[0]
      .replace(/^file:/, '')
      .split('\t')[0];
  }
}
