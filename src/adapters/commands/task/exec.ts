import { Args, Flags } from '@oclif/core';
import { UsageError } from '../../../domain/shared/errors';
import { OCI_PROCESS_TYPE_URL } from '../../../application/shim/task/any-payload';
import { idFlag, readFlagFile, stdioOf, TaskCommand } from '../../shim/inbound/cli/task-command';

const DEFAULT_ENV = ['PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'];

export default class TaskExec extends TaskCommand {
  static override summary = 'Add a process to a task (Exec); it runs at `task start --exec-id`.';
  static override description =
    'The process is an OCI Process: from --spec (a JSON file), or built from the arguments after `--` with --cwd and --env.';
  static override examples = [
    '<%= config.bin %> task exec --id web --exec-id ls1 --stdout /tmp/ls.log -- ls -l /',
    '<%= config.bin %> task exec --id web --exec-id e2 --spec process.json',
  ];
  static override strict = false;
  static override args = {
    command: Args.string({ ignoreStdin: true, description: 'Program and arguments (after --).' }),
  };
  static override flags = {
    id: idFlag,
    'exec-id': Flags.string({ required: true, description: 'Id of the new process.' }),
    spec: Flags.string({ description: 'File holding the OCI Process JSON.', exclusive: ['cwd', 'env'] }),
    cwd: Flags.string({ default: '/', description: 'Working directory (without --spec).' }),
    env: Flags.string({
      multiple: true,
      default: [],
      description: 'NAME=value (repeatable, without --spec; PATH has a default).',
    }),
    terminal: Flags.boolean({ default: false, description: 'Run on a pseudo-terminal.' }),
    stdin: Flags.string({ default: '', description: 'FIFO or file for stdin.' }),
    stdout: Flags.string({ default: '', description: 'FIFO, file or file:// URI for stdout.' }),
    stderr: Flags.string({ default: '', description: 'FIFO, file or file:// URI for stderr.' }),
  };

  async run(): Promise<void> {
    const { flags, argv } = await this.parse(TaskExec);
    const process =
      flags.spec === undefined
        ? this.fromArgs(argv as string[], flags.cwd, flags.env, flags.terminal)
        : readFlagFile('--spec', flags.spec);
    await this.client(flags).exec({
      id: flags.id,
      execId: flags['exec-id'],
      terminal: flags.terminal,
      ...stdioOf(flags),
      spec: { typeUrl: OCI_PROCESS_TYPE_URL, value: new TextEncoder().encode(process) },
    });
  }

  private fromArgs(args: string[], cwd: string, env: string[], terminal: boolean): string {
    if (args.length === 0) throw new UsageError('name the program to run after --, or give --spec', 'CLI.EXEC_ARGS');
    const hasPath = env.some((e) => e.startsWith('PATH='));
    return JSON.stringify({ args, cwd, env: hasPath ? env : [...DEFAULT_ENV, ...env], terminal });
  }
}
