/**
 * What srun, sbatch and salloc share at their start and end: the client
 * process, the console that prints as the command would, and the result
 * that ends with the command's exit status.
 */
import os from 'node:os';
import { startClient, type ClientProcess, type StackRef } from './client.js';
import { CommandConsole } from './console.js';
import { envList, envRecord } from './job-env.js';
import type { CommandName, CommandResult, WordCommandOptions } from './types.js';

/** How long a command may run, everything it starts included, unless timeoutMs says otherwise. */
export const DEFAULT_COMMAND_TIMEOUT_MS = 5 * 60_000;

export interface CommandRun {
  /** The command's environment and working directory. */
  env: Record<string, string>;
  cwd: string;
  console: CommandConsole;
  client: ClientProcess;
  result: CommandResult;
  /**
   * The command ends with this status once its client process has ended
   * (128 + signal when a plugin killed that process); output is captured.
   */
  finish(exitCode: number): Promise<CommandResult>;
}

export function beginCommand(stack: StackRef, command: CommandName, options: WordCommandOptions): CommandRun {
  const env = envRecord(envList(options.env ?? process.env));
  const cwd = options.cwd ?? process.cwd();
  const console = new CommandConsole(command, options);
  const client = startClient(
    stack,
    command,
    options.args,
    env,
    cwd,
    options.timeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS,
    (e) => console.clientEvent(e),
    (s, c) => (s === 'stdout' ? console.stdout(c) : console.stderr(c)),
    options.script,
  );
  const result: CommandResult = {
    command,
    args: options.args,
    exitCode: 1,
    stdout: '',
    stderr: '',
    client: client.record,
    steps: [],
    jobScripts: [],
  };
  const finish = async (exitCode: number): Promise<CommandResult> => {
    const run = await client.finished;
    result.exitCode = run.signal ? 128 + (os.constants.signals[run.signal] ?? 0) : exitCode;
    result.stdout = console.stdoutText;
    result.stderr = console.stderrText;
    return result;
  };
  return { env, cwd, console, client, result, finish };
}
