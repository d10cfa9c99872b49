import { runProgram } from './run-program';

export interface CommandResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs a program with an argv array (no shell); never rejects: a program that cannot start is code 127. */
export async function runCommand(file: string, args: readonly string[]): Promise<CommandResult> {
  try {
    const result = await runProgram(file, args);
    return { code: result.code ?? 128 + (result.signal ?? 0), stdout: result.stdout, stderr: result.stderr };
  } catch (err) {
    return { code: 127, stdout: '', stderr: `${file}: ${(err as Error).message}` };
  }
}
