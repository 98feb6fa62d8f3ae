#!/usr/bin/env node
import { createInterface } from 'node:readline/promises';
import { runCli } from './cli.program.js';

/** A yes/no question on the terminal; only offered when a person is there to answer. */
async function confirm(message: string, defaultAnswer: boolean): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  try {
    const answer = (await rl.question(`${message} (${defaultAnswer ? 'Y/n' : 'y/N'}) `)).trim().toLowerCase();
    return answer === '' ? defaultAnswer : answer.startsWith('y');
  } finally {
    rl.close();
  }
}

process.exitCode = await runCli(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  cwd: process.cwd(),
  env: process.env,
  nodeVersion: process.versions.node,
  ...(process.stdin.isTTY && process.stdout.isTTY ? { confirm } : {}),
});
