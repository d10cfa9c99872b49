import { Hook, toConfiguredId } from '@oclif/core';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { UsageError } from '../../../../domain/shared/errors';
import { errorReport } from './error-report';

type Closest = (target: string, candidates: string[]) => string;

/**
 * The nearest command name, as @oclif/plugin-not-found finds it (Levenshtein distance).
 * Its hook prints oclif's own warning and, on a terminal, asks a question; skiff keeps
 * its one-line errors and never runs another command than the one typed, so only the
 * plugin's matcher is used. Its package exports nothing else, hence the path.
 */
async function closestFinder(): Promise<Closest | undefined> {
  try {
    const utils = join(dirname(require.resolve('@oclif/plugin-not-found')), 'utils.js');
    const loaded = (await import(pathToFileURL(utils).href)) as { default: { closest: Closest } };
    return loaded.default.closest;
  } catch {
    return undefined;
  }
}

/** `skiff task stat`: one line naming what was typed, the nearest command and where the list is; exit 2. */
const commandNotFound: Hook.CommandNotFound = async function (opts) {
  const { config } = opts;
  const visible = [
    ...config.commands.filter((c) => !c.hidden).flatMap((c) => [c.id, ...c.aliases]),
    ...config.topics.filter((t) => !t.hidden).map((t) => t.name),
  ];
  const closest = await closestFinder();
  const nearest = closest === undefined ? '' : closest(opts.id, visible);
  const typed = toConfiguredId(opts.id, config);
  const topic = opts.id.split(':')[0];
  const list = config.findTopic(topic) ? `${config.bin} help ${topic}` : `${config.bin} help`;
  const suggestion = nearest === '' ? '' : `; did you mean \`${config.bin} ${toConfiguredId(nearest, config)}\`?`;
  const message = `"${typed}" is not a ${config.bin} command${suggestion} (\`${list}\` lists the commands)`;
  const report = errorReport(new UsageError(message, 'CLI.NOT_FOUND'));
  if (opts.argv?.includes('--json')) {
    process.stdout.write(`${JSON.stringify({ error: report }, null, 2)}\n`);
  } else {
    process.stderr.write(`${config.bin}: ${report.message}\n`);
  }
  this.exit(report.exitCode);
};

export default commandNotFound;
