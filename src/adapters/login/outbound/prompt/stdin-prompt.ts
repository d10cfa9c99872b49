import { Prompt } from '../../../../application/login/ports/prompt.port';

/** More than any token; input beyond it is not read. */
const MAX_INPUT = 64 * 1024;

/** The first non-empty line of piped input (a token never spans lines). */
export function firstLine(text: string): string {
  return text.split(/\r?\n/).find((line) => line.trim() !== '') ?? '';
}

function readAll(stream: NodeJS.ReadStream): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => {
      text += chunk;
      if (text.length > MAX_INPUT) {
        stream.destroy();
        resolve(text.slice(0, MAX_INPUT));
      }
    });
    stream.on('end', () => resolve(text));
    stream.on('error', reject);
  });
}

/**
 * One line typed without echo after `question`; Ctrl-C ends the program as it would have (exit
 * 130). Echo goes off before the question is shown: someone who types (or pastes) as soon as
 * they see it, while this process has not run on yet, would otherwise see the secret echoed.
 */
function readHidden(input: NodeJS.ReadStream, output: NodeJS.WriteStream, question: string): Promise<string> {
  return new Promise((resolve) => {
    let line = '';
    input.setRawMode(true);
    output.write(question);
    input.setEncoding('utf8');
    input.resume();
    const finish = () => {
      input.setRawMode(false);
      input.pause();
      input.removeListener('data', onData);
      output.write('\n');
    };
    const onData = (chunk: string) => {
      for (const char of chunk) {
        if (char === '\r' || char === '\n' || char === '\u0004') {
          finish();
          resolve(line);
          return;
        }
        if (char === '\u0003') {
          finish();
          process.exit(130);
        }
        if (char === '\u007f' || char === '\b') line = line.slice(0, -1);
        else if (char >= ' ') line += char;
      }
    };
    input.on('data', onData);
  });
}

/**
 * Reads secrets from standard input: on a terminal, one line without echo after
 * the question (on stderr); otherwise the first non-empty line of all input.
 */
export class StdinPrompt implements Prompt {
  constructor(
    private readonly input: NodeJS.ReadStream = process.stdin,
    private readonly output: NodeJS.WriteStream = process.stderr,
  ) {}

  async secret(question: string): Promise<string> {
    if (this.input.isTTY) return readHidden(this.input, this.output, question);
    return firstLine(await readAll(this.input));
  }
}
