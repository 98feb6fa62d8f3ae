#!/usr/bin/env node
import { runCreate } from './create.command.js';

process.exitCode = await runCreate(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  cwd: process.cwd(),
  interactive: Boolean(process.stdin.isTTY && process.stdout.isTTY),
});
