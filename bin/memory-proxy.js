#!/usr/bin/env node
// Entry point for `npx memory-proxy`: runs the TypeScript sources through tsx, no build step.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const require = createRequire(import.meta.url);
const tsx = require.resolve('tsx/cli');
const child = spawn(process.execPath, [tsx, path.join(root, 'src', 'main.ts'), ...process.argv.slice(2)], { stdio: 'inherit' });
child.on('exit', (code, signal) => (signal ? process.kill(process.pid, signal) : process.exit(code ?? 0)));
