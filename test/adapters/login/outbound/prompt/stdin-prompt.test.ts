import { EventEmitter } from 'node:events';
import { StdinPrompt } from '../../../../../src/adapters/login/outbound/prompt/stdin-prompt';

/** A terminal's stdin and stderr that record, in order, what the prompt does to them. */
function terminal() {
  const events: string[] = [];
  const input = Object.assign(new EventEmitter(), {
    isTTY: true,
    setRawMode: (raw: boolean) => events.push(`raw ${raw}`),
    setEncoding: () => undefined,
    resume: () => undefined,
    pause: () => undefined,
  });
  const output = { write: (text: string) => events.push(`write ${JSON.stringify(text)}`) };
  const prompt = new StdinPrompt(input as unknown as NodeJS.ReadStream, output as unknown as NodeJS.WriteStream);
  return { events, input, prompt };
}

describe('StdinPrompt on a terminal', () => {
  it('turns echo off before it shows the question, so nothing typed at once is echoed', async () => {
    const { events, input, prompt } = terminal();
    const answer = prompt.secret('Paste the git token: ');
    input.emit('data', 'sec\u007fcret\r');
    expect(await answer).toBe('secret');
    expect(events).toEqual(['raw true', 'write "Paste the git token: "', 'raw false', 'write "\\n"']);
  });
});
