// Starts the search thread (search-worker.ts): threads do not inherit the TypeScript loader of
// the process, so this registers tsx first, as bin/memory-proxy.js does for the process.
import { register } from 'tsx/esm/api';

register();
await import('./search-worker.ts');
