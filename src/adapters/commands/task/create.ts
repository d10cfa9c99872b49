import { Flags } from '@oclif/core';
import { resolve } from 'node:path';
import { UsageError } from '../../../domain/shared/errors';
import { RootfsMount } from '../../../application/shim/ports/process-runtime.port';
import { idFlag, stdioOf, TaskCommand } from '../../shim/inbound/cli/task-command';

function parseMount(text: string): RootfsMount {
  let value: { type?: unknown; source?: unknown; target?: unknown; options?: unknown };
  try {
    value = JSON.parse(text) as typeof value;
  } catch {
    throw new UsageError(
      `--rootfs ${JSON.stringify(text)} is not JSON: use '{"type":"bind","source":"/src","options":["rbind"]}'`,
      'CLI.MOUNT',
    );
  }
  const options = Array.isArray(value.options) ? value.options.map(String) : [];
  return {
    type: String(value.type ?? ''),
    source: String(value.source ?? ''),
    target: String(value.target ?? ''),
    options,
  };
}

export default class TaskCreate extends TaskCommand {
  static override summary =
    'Create a task from an OCI bundle (Create): the process exists, CREATED, until `task start`.';
  static override examples = [
    '<%= config.bin %> task create --id web --bundle ./examples/hello --stdout /tmp/web.log',
    '<%= config.bin %> task create --id sh --bundle ./examples/hello --terminal --stdin /tmp/in.fifo --stdout /tmp/out.fifo',
  ];
  static override flags = {
    id: idFlag,
    bundle: Flags.string({ required: true, description: 'Bundle directory (holds config.json).' }),
    stdin: Flags.string({
      default: '',
      description: 'FIFO or file for stdin (empty: none; relative to this directory).',
    }),
    stdout: Flags.string({
      default: '',
      description:
        'FIFO, file or file:// URI for stdout (relative to this directory; files are appended to, created 0600).',
    }),
    stderr: Flags.string({ default: '', description: 'FIFO, file or file:// URI for stderr.' }),
    terminal: Flags.boolean({ default: false, description: 'Run on a pseudo-terminal (its output goes to --stdout).' }),
    checkpoint: Flags.string({ default: '', description: 'Restore from this checkpoint directory (runc).' }),
    rootfs: Flags.string({
      multiple: true,
      default: [],
      description: 'A rootfs mount as JSON {type, source, target, options} (repeatable; runc).',
    }),
  };

  async run(): Promise<{ pid: number }> {
    const { flags } = await this.parse(TaskCreate);
    const reply = await this.client(flags).create({
      id: flags.id,
      bundle: resolve(flags.bundle),
      rootfs: flags.rootfs.map(parseMount),
      terminal: flags.terminal,
      ...stdioOf(flags),
      checkpoint: flags.checkpoint === '' ? '' : resolve(flags.checkpoint),
      parentCheckpoint: '',
    });
    this.log(String(reply.pid));
    return reply;
  }
}
