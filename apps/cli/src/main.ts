#!/usr/bin/env node
// framedesk admin CLI: `npm run -s cli -- <command>`. Bad arguments give one line and exit 2.
import { run } from './cli';

process.exitCode = await run(process.argv.slice(2), {
  env: process.env,
  stdin: process.stdin,
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
  stdout: process.stdout,
});
