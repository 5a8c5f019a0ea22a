#!/usr/bin/env -S node --max-semi-space-size=64
// Entry point for `npx memory-proxy [command]`: runs the CLI (src/cli/main.ts) in this very
// process, with tsx registered as the TypeScript loader, so there is no build step and no child
// process: a supervisor's SIGTERM reaches the proxy itself and shuts it down gracefully.
// `start`, or no command, starts the proxy as `npm start` does.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/main.ts');
