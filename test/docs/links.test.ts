import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { anchors, brokenLinks, relativeLinks, slug } from '../support/markdown-links';

const ROOT = join(__dirname, '..', '..');

describe('the mechanism: relative links of a Markdown file and the anchors they name', () => {
  it('finds links to files and anchors, and leaves out the web and code', () => {
    const markdown = [
      'See [the contract](docs/shim-contract.md#the-rpcs), [here](#top) and ![a picture](img/a%20b.png "title").',
      '[web](https://example.com) [mail](mailto:a@example.com) `[not a link](nowhere.md)`',
      '```sh',
      'echo "[not a link](nowhere.md)"',
      '```',
      '[a folder](examples/plugin-hello)',
    ].join('\n');
    expect(relativeLinks(markdown)).toEqual([
      { line: 1, path: 'docs/shim-contract.md', anchor: 'the-rpcs' },
      { line: 1, path: '', anchor: 'top' },
      { line: 1, path: 'img/a b.png' },
      { line: 6, path: 'examples/plugin-hello' },
    ]);
  });

  it('makes anchors as GitHub does', () => {
    expect(slug('`skiff run`: the whole thing in one command')).toBe('skiff-run-the-whole-thing-in-one-command');
    expect(slug('Benchmark (`npm run bench -- cri`)')).toBe('benchmark-npm-run-bench----cri');
    expect(slug('Why gRPC misses 1.5x')).toBe('why-grpc-misses-15x');
    expect([...anchors('# A\n## A\n```\n# not a heading\n```\n<a id="x"></a>')]).toEqual(['a', 'a-1', 'x']);
  });

  it('names each link that leads nowhere, and no other', () => {
    const root = mkdtempSync(join(tmpdir(), 'skiff-links-'));
    try {
      mkdirSync(join(root, 'docs'));
      writeFileSync(join(root, 'docs', 'page.md'), '# Page\n## Good part\n');
      writeFileSync(
        join(root, 'README.md'),
        [
          '# Top',
          '[ok](docs/page.md#good-part) [ok](#top) [ok](docs)',
          '[gone](docs/gone.md) [no heading](docs/page.md#bad-part) [no anchor](#nowhere) [out](../x.md)',
        ].join('\n'),
      );
      expect(brokenLinks(root, 'README.md')).toEqual([
        'README.md:3: docs/gone.md: no such file',
        'README.md:3: docs/page.md#bad-part: no such heading',
        'README.md:3: #nowhere: no such heading',
        'README.md:3: ../x.md: outside the repository',
      ]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('every relative link of the README and docs/ resolves', () => {
  const pages = [
    'README.md',
    ...readdirSync(join(ROOT, 'docs'))
      .filter((name) => name.endsWith('.md'))
      .map((name) => `docs/${name}`),
  ];
  it.each(pages)('%s', (page) => {
    expect(brokenLinks(ROOT, page)).toEqual([]);
  });
});

describe('docs/README.md, the index', () => {
  it('lists every page of docs/', () => {
    const index = readFileSync(join(ROOT, 'docs', 'README.md'), 'utf8');
    const pages = readdirSync(join(ROOT, 'docs')).filter((name) => name.endsWith('.md') && name !== 'README.md');
    expect(pages.filter((page) => !index.includes(`](${page})`))).toEqual([]);
  });
});
