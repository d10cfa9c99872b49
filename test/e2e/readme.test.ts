import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runBlock, shellBlocks } from '../support/readme-examples';

const ROOT = join(__dirname, '..', '..');
const BLOCK_TIMEOUT_MS = 150_000;

describe('the mechanism: every shell block of a Markdown file, unless marked not-run', () => {
  const markdown = [
    '# t',
    '```sh',
    'echo one',
    '```',
    '<!-- not-run: needs a browser -->',
    '',
    '```bash',
    'exit 1',
    '```',
    '```yaml',
    'a: 1',
    '```',
    '<!-- not-run: -->',
    '```shell',
    'true',
    'false',
    'echo never',
    '```',
  ].join('\n');

  it('finds sh, bash and shell blocks with their line and marker, and nothing else', () => {
    expect(shellBlocks(markdown)).toEqual([
      { line: 2, code: 'echo one' },
      { line: 7, code: 'exit 1', notRun: 'needs a browser' },
      { line: 14, code: 'true\nfalse\necho never', notRun: '' },
    ]);
  });

  it('stops at the first command that fails and names it', async () => {
    const run = await runBlock(ROOT, { line: 1, code: 'echo before\nskiff task stat --id x\necho after' }, 30_000);
    expect(run.code).not.toBe(0);
    expect(run.stdout).toBe('before\n');
    expect(run.stderr).toContain('README command failed (exit 2): skiff task stat --id x');
  });
});

/** The README and every page of docs/: examples moved out of the README stay checked. */
const PAGES = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`),
];

describe('every shell example of the README and docs/ runs as written', () => {
  const pages = PAGES.map((page) => ({ page, blocks: shellBlocks(readFileSync(join(ROOT, page), 'utf8')) }));

  it('has shell examples in the README, and each one left out says why', () => {
    expect(pages[0].blocks.filter((b) => b.notRun === undefined).length).toBeGreaterThan(0);
    for (const { page, blocks } of pages)
      for (const block of blocks)
        if (block.notRun !== undefined) expect(`${page}:${block.line}: ${block.notRun}`).not.toMatch(/: $/);
  });

  const runnable = pages.flatMap(({ page, blocks }) =>
    blocks.filter((b) => b.notRun === undefined).map((b) => [page, b.line, b.code.split('\n')[0], b] as const),
  );
  it.each(runnable)(
    '%s line %i: %s',
    async (_page, _line, _first, block) => {
      const run = await runBlock(ROOT, block, BLOCK_TIMEOUT_MS - 10_000);
      if (run.code !== 0) throw new Error(`exit ${run.code}\n--- stdout\n${run.stdout}\n--- stderr\n${run.stderr}`);
      expect(run.runsLeft).toEqual([]);
    },
    BLOCK_TIMEOUT_MS,
  );
});
