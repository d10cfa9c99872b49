// The lite build: inversify's ES module build imports it too, so the bundle holds one
// copy of the polyfill, not two.
import 'reflect-metadata/lite';
import type * as GetTokenModule from '../../application/login/auth/get-token.use-case';
import type * as GitCredentialModule from '../../application/login/auth/git-credential.use-case';
import type * as KubeCredentialModule from '../../application/login/auth/kube-credential.use-case';
import type * as StatusModule from '../../application/login/auth/status.use-case';
import type * as StatusAllModule from '../../application/login/auth/status-all.use-case';
import type * as GitInput from '../../adapters/login/inbound/cli/git-credential-input';
import type * as StatusListText from '../../adapters/login/inbound/cli/status-list-text';
import { printFailure } from '../../adapters/shared/inbound/cli/failure-output';
import { runGuarded } from '../../adapters/shared/inbound/cli/unfinished-work';
import type * as StatusText from '../../adapters/login/inbound/cli/status-text';
import { type FastAuthCall } from '../../adapters/login/inbound/cli/fast-auth-args';
import { print, watchStreams, write } from '../../adapters/shared/inbound/cli/fd-output';
import { authPaths } from '../login/auth-paths';

export { parseAuthArgs } from '../../adapters/login/inbound/cli/fast-auth-args';
import { buildContainer } from '../shared/container';

/**
 * Runs the call and sets its kind's exit code; output matches the oclif
 * commands', and so does the guard against work left pending on an empty loop.
 * `exit` (bin/run.js): the process ends as soon as the answer is written (see watchStreams).
 * `gitRequest`: git's request, when the read path (auth-read.ts) has read it from stdin already.
 */
export async function runAuth(
  call: FastAuthCall,
  options: { readonly exit?: boolean; readonly gitRequest?: string } = {},
): Promise<void> {
  const streams = options.exit === true ? watchStreams() : undefined;
  await runGuarded(`auth ${call.verb}`, () => answer(call, options.gitRequest));
  if (streams !== undefined && !streams.made()) process.exit();
}

// Each verb loads only its own use case (and what that imports): the bundle's other modules
// are never run.
async function answer(call: FastAuthCall, gitRequest: string | undefined): Promise<void> {
  const target = { domain: call.domain, context: call.context };
  try {
    const container = buildContainer({ login: authPaths() });
    if (call.verb === 'token') {
      const { GetToken } = require('../../application/login/auth/get-token.use-case') as typeof GetTokenModule;
      const getToken = container.get(GetToken);
      if (call.json) print(1, [JSON.stringify(await getToken.details(target), null, 2)]);
      else print(1, [await getToken.execute(target)]);
    } else if (call.verb === 'git-credential') {
      const { GitCredential } =
        require('../../application/login/auth/git-credential.use-case') as typeof GitCredentialModule;
      const { readGitCredentialRequest } =
        require('../../adapters/login/inbound/cli/git-credential-input') as typeof GitInput;
      const reply = await container
        .get(GitCredential)
        .execute({ target, operation: call.operation, request: gitRequest ?? (await readGitCredentialRequest()) });
      if (reply !== '') write(1, reply);
    } else if (call.verb === 'kube-credential') {
      const { KubeCredential } =
        require('../../application/login/auth/kube-credential.use-case') as typeof KubeCredentialModule;
      const execInfo = process.env.KUBERNETES_EXEC_INFO;
      print(1, [JSON.stringify(await container.get(KubeCredential).execute({ target, execInfo }))]);
    } else if (call.domain === undefined) {
      const { StatusAll } = require('../../application/login/auth/status-all.use-case') as typeof StatusAllModule;
      const { statusListLines } = require('../../adapters/login/inbound/cli/status-list-text') as typeof StatusListText;
      const list = await container.get(StatusAll).execute(target);
      print(1, call.json ? [JSON.stringify(list, null, 2)] : statusListLines(list));
    } else {
      const { Status } = require('../../application/login/auth/status.use-case') as typeof StatusModule;
      const { statusLines } = require('../../adapters/login/inbound/cli/status-text') as typeof StatusText;
      const report = await container.get(Status).execute(target);
      print(1, call.json ? [JSON.stringify(report, null, 2)] : statusLines(report));
    }
  } catch (err) {
    printFailure(err, call.json);
  }
}
