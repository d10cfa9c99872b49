import { spawnSync } from 'node:child_process';
import { CliHome, CliResult } from '../support/skiff-home';
import { SKIFF_BIN } from '../support/shim-process';

// Each test runs the built CLI several times: on a loaded 2-core machine that takes a while.
jest.setTimeout(90_000);

/** One line on stderr, `skiff: ` first, no stack trace. */
function expectOneLine(result: CliResult): string {
  const lines = result.stderr.trimEnd().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^skiff: /);
  expect(result.stderr).not.toMatch(/\n\s+at /);
  return lines[0];
}

describe('the command line as a newcomer meets it', () => {
  const home = new CliHome();
  afterAll(() => home.remove());

  describe('a missing flag or argument is named, with the help and an example', () => {
    it.each([
      [['task', 'state'], /missing required flag --id \(see `skiff task state --help`; for example: skiff task state /],
      [['run'], /missing required flag --bundle \(see `skiff run --help`; for example: skiff run --bundle /],
      [
        ['config', 'set'],
        /needs --host <domain>, --token-store keyring\|file, --\[no-\]par or --\[no-\]dpop \(see `skiff config set --help`; for example: skiff config set --host /,
      ],
      [['config', 'use-context'], /missing required argument: name \(Name of an existing context\.\) \(see /],
      [['task', 'exec', '--id', 'x', '--exec-id', 'e', '--spec', 'p.json', '--cwd', '/'], /--cwd=\/ cannot also be/],
      [['task', 'resize-pty', '--id', 'x', '--width', '0', '--height', '1'], /--width: Expected an integer greater/],
      [['task', 'state', '--id'], /^skiff: Flag --id expects a value \(see `skiff task state --help`; for example: /],
    ])('skiff %j', async (args, message) => {
      const result = await home.run(args);
      expect(result.code).toBe(2);
      expect(expectOneLine(result)).toMatch(message);
    });

    it('with --json the error is a usage error, not "Internal"', async () => {
      const result = await home.run(['task', 'state', '--json']);
      expect(result.code).toBe(2);
      expect(JSON.parse(result.stdout).error).toMatchObject({
        kind: 'Usage',
        exitCode: 2,
        message: expect.stringMatching(/^missing required flag --id /),
      });
    });
  });

  describe('an unknown command', () => {
    it("answers in skiff's style with the nearest command, never oclif's internal id", async () => {
      const result = await home.run(['task', 'stat', '--id', 'x']);
      expect(result.code).toBe(2);
      const line = expectOneLine(result);
      expect(line).toMatch(/^skiff: "task stat" is not a skiff command; did you mean `skiff task sta(rt|te|ts)`\?/);
      expect(line).toContain('`skiff help task` lists the commands');
      expect(result.stderr).not.toContain('task:stat');
    });

    it('suggests nothing far from what was typed: it names the first words and `skiff --help` instead', async () => {
      const line = expectOneLine(await home.run(['frobnicate']));
      expect(line).toMatch(
        /^skiff: "frobnicate" is not a skiff command; skiff knows auth, .*task \(`skiff --help` lists/,
      );
      expect(line).not.toContain('did you mean');
      expect(expectOneLine(await home.run(['task', 'frobnicate']))).toBe(
        'skiff: "task frobnicate" is not a skiff command (`skiff help task` lists the commands)',
      );
    });

    it('suggests a topic for a mistyped topic, and answers in JSON with --json', async () => {
      expect(expectOneLine(await home.run(['tsk']))).toMatch(/did you mean `skiff task`\?/);
      const json = await home.run(['tsk', '--json']);
      expect(JSON.parse(json.stdout).error).toMatchObject({ kind: 'Usage', exitCode: 2 });
    });
  });

  describe('help, version and completion, as oclif CLIs have them', () => {
    it('skiff help <command>, -h and --help show the same help', async () => {
      const viaHelp = await home.run(['help', 'task', 'state']);
      const viaH = await home.run(['task', 'state', '-h']);
      const viaLong = await home.run(['task', 'state', '--help']);
      expect(viaHelp.code).toBe(0);
      expect(viaHelp.stdout).toContain('$ skiff task state');
      expect(viaH.stdout).toBe(viaHelp.stdout);
      expect(viaLong.stdout).toBe(viaHelp.stdout);
    });

    it('-v and --version print the version', async () => {
      const short = await home.run(['-v']);
      expect(short.code).toBe(0);
      // The npm package's name, as oclif's help shows it under VERSION; the command is skiff.
      expect(short.stdout).toMatch(/^skiff-cli\/\d+\.\d+\.\d+ /);
      expect((await home.run(['--help'])).stdout).toContain(`VERSION\n  ${short.stdout.split('\n')[0]}\n`);
      expect((await home.run(['--version'])).stdout).toBe(short.stdout);
    });

    it('bash completes commands and flags once `skiff autocomplete` has been followed', () => {
      const script = [
        // What the instructions of `skiff autocomplete bash` (which builds the cache) say to add to ~/.bashrc.
        `node ${JSON.stringify(SKIFF_BIN)} autocomplete bash >/dev/null`,
        `eval "$(node ${JSON.stringify(SKIFF_BIN)} autocomplete script bash)"`,
        'COMP_WORDS=(skiff task sta); COMP_CWORD=2; _skiff_autocomplete; echo "${COMPREPLY[*]}"',
        'COMP_WORDS=(skiff run --bu); COMP_CWORD=2; _skiff_autocomplete; echo "${COMPREPLY[*]}"',
      ].join('\n');
      const bash = spawnSync('bash', ['-c', script], { env: home.env, encoding: 'utf8' });
      expect(bash.status).toBe(0);
      expect(bash.stdout.split('\n').slice(0, 2)).toEqual(['start state stats', '--bundle']);
    });
  });

  it.each([
    [
      ['task', 'update', '--id', 'x', '--resources', '@/nonexistent/limits.json'],
      '--resources /nonexistent/limits.json',
    ],
    [['task', 'exec', '--id', 'x', '--exec-id', 'e', '--spec', '/nonexistent/p.json'], '--spec /nonexistent/p.json'],
  ])('a file named by a flag that cannot be read is a usage error naming it: skiff %j', async (args, named) => {
    const result = await home.run(args);
    expect(result.code).toBe(2);
    expect(expectOneLine(result)).toBe(`skiff: cannot read ${named}: no such file or directory (ENOENT)`);
  });

  it('skiff config set --host "" is refused: no context left without its domain after a success', async () => {
    const result = await home.run(['config', 'set', '--host', '']);
    expect(result.code).toBe(3);
    expect(expectOneLine(result)).toBe('skiff: --host needs a domain: skiff config set --host example.com');
    expect((await home.run(['config', 'current-context'])).code).toBe(3);
  });

  describe('empty input is an identity error naming what was expected, never a silent success', () => {
    it('printf "" | skiff auth set-gitea-token', async () => {
      const result = await home.run(['auth', 'set-gitea-token', '--domain', 'example.test'], { input: '' });
      expect(result.code).toBe(4);
      expect(expectOneLine(result)).toMatch(/no token provided: expected a git access token as the argument or on/);
    });

    it('skiff boards set-api-key </dev/null', async () => {
      const result = await home.run(['boards', 'set-api-key', '--domain', 'example.test'], { input: '' });
      expect(result.code).toBe(4);
      expect(expectOneLine(result)).toMatch(/no API key provided: expected the board tool's API key/);
    });
  });
});
