import { spawnSync } from 'node:child_process';
import { CliHome } from '../support/skiff-home';
import { SKIFF_BIN } from '../support/shim-process';

jest.setTimeout(60_000);

/**
 * The parent's side of a pipe skiff reads from: bash opens the read end of a pipe (its
 * writer a `sleep`, or a printf then the sleep), starts skiff with it as stdin, and while
 * skiff runs samples the flags of that same description through its own fd 3
 * (/proc/<bash>/fdinfo/3), as `diff -` reading the pipe after skiff would see them. It also
 * counts how many descriptors skiff holds on the pipe (a second one: skiff reads through a
 * description of its own), and whether skiff's main thread waits in a blocking read(2) of the
 * pipe (its wchan, `pipe_read`: a read that leaves the description's flags as they are). With
 * `read_until_private`, once skiff reads (a second descriptor, a blocking read, or the flag
 * seen) it samples a while longer, then ends the writer so skiff reads EOF.
 */
const SCRIPT = String.raw`
set -u
node=$1 skiff=$2 writes=$3 read_until_private=$4; shift 4
exec 3< <(printf "$writes"; exec sleep 60)
writer=$!
"$node" "$skiff" "$@" <&3 3<&- >/dev/null 2>&1 &
pid=$!
samples=0 nonblock=0 private=0 blocking=0 after=0
while kill -0 $pid 2>/dev/null; do
  while read -r key value; do
    if [ "$key" = flags: ]; then
      samples=$((samples + 1))
      if (( 8#$value & 8#4000 )); then nonblock=$((nonblock + 1)); fi
    fi
  done < /proc/$$/fdinfo/3
  held=0
  for fd in /proc/$pid/fd/*; do [ "$fd" -ef /proc/$$/fd/3 ] && held=$((held + 1)); done
  [ $held -ge 2 ] && private=1
  case "$(cat /proc/$pid/wchan 2>/dev/null)" in *pipe_read*) blocking=1;; esac
  if [ "$read_until_private" = yes ] && { [ $private = 1 ] || [ $blocking = 1 ] || [ $nonblock -gt 0 ]; }; then
    after=$((after + 1))
    [ $after -ge 50 ] && kill $writer 2>/dev/null
  fi
done
kill $writer 2>/dev/null
wait $pid
echo "$samples $nonblock $private $? $blocking"
`;

interface Watch {
  samples: number;
  nonblock: number;
  privateDescription: boolean;
  exitCode: number;
  /** Seen waiting in a blocking read(2) of the pipe (the shared description, its flags untouched). */
  blockingRead: boolean;
}

function watchStdin(args: string[], options: { writes?: string; readsStdin?: boolean } = {}): Watch {
  const home = new CliHome();
  try {
    const run = spawnSync(
      'bash',
      [
        '-c',
        SCRIPT,
        'watch',
        process.execPath,
        SKIFF_BIN,
        options.writes ?? '',
        options.readsStdin ? 'yes' : 'no',
        ...args,
      ],
      { env: home.env, encoding: 'utf8', timeout: 50_000 },
    );
    const [samples, nonblock, privateDescription, exitCode, blocking] = run.stdout.trim().split(' ').map(Number);
    return { samples, nonblock, privateDescription: privateDescription === 1, exitCode, blockingRead: blocking === 1 };
  } finally {
    home.remove();
  }
}

describe("stdin on a pipe: skiff leaves the flags of the pipe's shared description alone (issue 33)", () => {
  it.each([[['containerd', 'config', '--format', 'v2']], [['--help']], [['task', 'ls']]])(
    'skiff %j, which never reads stdin, neither makes it non-blocking nor opens it',
    (args) => {
      const watch = watchStdin(args);
      expect(watch.samples).toBeGreaterThan(10);
      expect(watch).toMatchObject({ nonblock: 0, privateDescription: false });
    },
  );

  it("skiff plugins, an ES module importing node:process (Node then makes process.stdin for the module's namespace), leaves the flags alone", () => {
    const watch = watchStdin(['plugins']);
    expect(watch.exitCode).toBe(0);
    expect(watch.samples).toBeGreaterThan(10);
    expect(watch.nonblock).toBe(0);
  });

  it('a command that reads stdin through process.stdin (auth set-gitea-token) reads it through a description of its own', () => {
    const watch = watchStdin(['auth', 'set-gitea-token'], { readsStdin: true });
    expect(watch.samples).toBeGreaterThan(50);
    expect(watch).toMatchObject({ nonblock: 0, privateDescription: true });
  });

  it.each([
    ['through oclif', ['auth', 'git-credential', 'get', '--domain', 'example.com']],
    ['on the fast path', ['auth', 'git-credential', '--domain', 'example.com', 'get']],
  ])(
    "auth git-credential (%s) reads git's request with blocking reads of the pipe, its flags left alone",
    (_path, args) => {
      const watch = watchStdin(args, { writes: 'protocol=https\\nhost=git.example.com\\n\\n', readsStdin: true });
      expect(watch.samples).toBeGreaterThan(50);
      expect(watch).toMatchObject({ nonblock: 0, blockingRead: true, privateDescription: false, exitCode: 0 });
    },
  );
});
