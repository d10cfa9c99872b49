import { Hook, toConfiguredId } from '@oclif/core';
import { UsageError } from '../../../../domain/shared/errors';
import { errorReport } from './error-report';
import { nearestCommand } from './nearest-command';

/**
 * `skiff task stat`: one line naming what was typed, the nearest command (when one is near)
 * and where the list is; exit 2.
 */
const commandNotFound: Hook.CommandNotFound = async function (opts) {
  const { config } = opts;
  const visible = [
    ...config.commands.filter((c) => !c.hidden).flatMap((c) => [c.id, ...c.aliases]),
    ...config.topics.filter((t) => !t.hidden).map((t) => t.name),
  ];
  const nearest = nearestCommand(opts.id, visible);
  const typed = toConfiguredId(opts.id, config);
  const topic = opts.id.split(':')[0];
  let message = `"${typed}" is not a ${config.bin} command`;
  if (nearest !== undefined) {
    message += `; did you mean \`${config.bin} ${toConfiguredId(nearest, config)}\`?`;
  }
  if (config.findTopic(topic)) {
    message += ` (\`${config.bin} help ${topic}\` lists the commands)`;
  } else {
    // Nothing near: the first words skiff knows, so that the next try starts right.
    const first = [...new Set(visible.filter((name) => !name.includes(':')))].sort();
    message += `${nearest === undefined ? `; ${config.bin} knows ${first.join(', ')}` : ''} (\`${config.bin} --help\` lists the commands)`;
  }
  const report = errorReport(new UsageError(message, 'CLI.NOT_FOUND'));
  if (opts.argv?.includes('--json')) {
    process.stdout.write(`${JSON.stringify({ error: report }, null, 2)}\n`);
  } else {
    process.stderr.write(`${config.bin}: ${report.message}\n`);
  }
  this.exit(report.exitCode);
};

export default commandNotFound;
