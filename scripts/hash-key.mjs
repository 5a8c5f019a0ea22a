#!/usr/bin/env node
// Prints the line to put in PROXY_API_KEYS_FILE for an inbound API key: the file holds only
// sha256 hashes, so a leaked file leaks no key.
//   npm run hash-key -- --new alice bob      a fresh random key for partitions alice and bob
//   echo -n "$KEY" | npm run hash-key -- alice   an existing key, read from stdin (not argv, so it stays out of shell history)
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';

const args = process.argv.slice(2);
const fresh = args[0] === '--new';
const partitions = fresh ? args.slice(1) : args;
if (partitions.length === 0) {
  process.stderr.write(
    'usage: npm run hash-key -- [--new] <partition>... ("*" for all partitions); an existing key is read from stdin\n',
  );
  process.exit(2);
}
const key = fresh ? `mp-${randomBytes(24).toString('base64url')}` : readFileSync(0, 'utf8').trim();
if (key.length < 16) {
  process.stderr.write('refusing a key shorter than 16 characters\n');
  process.exit(2);
}
const hash = createHash('sha256').update(key, 'utf8').digest('hex');
if (fresh) process.stderr.write(`key (give it to the client, store it nowhere else): ${key}\n`);
process.stdout.write(`${JSON.stringify({ [`sha256:${hash}`]: partitions })}\n`);
