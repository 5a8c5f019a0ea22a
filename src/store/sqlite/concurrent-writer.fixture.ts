// A writer process for sqlite-store.test.ts: opens its own SqliteStore on a shared dataDir,
// waits for the test's "go" on stdin so every writer starts at once, then appends turns and
// prints what it stored as one JSON line.
import { createHash } from 'node:crypto';
import type { NewMessage } from '../types';
import { SqliteStore } from './sqlite-store';

const [dataDir, partition, instance, label, countText] = process.argv.slice(2);
if (!dataDir || !partition || !instance || !label || !countText) {
  throw new Error(
    'usage: concurrent-writer.fixture.ts <dataDir> <partition> <instance> <label> <count>',
  );
}
const scope = { partition, instance };
const count = Number(countText);

function userTurn(content: string): NewMessage {
  const contentHash = createHash('sha256').update(content).digest('hex').slice(0, 32);
  return { role: 'user', content, raw: { role: 'user', content }, contentHash, tokenCount: 5 };
}

const store = new SqliteStore({ dataDir });
await store.init({ embeddingDimensions: 4 });
process.stdout.write('ready\n');
await new Promise((resolve) => process.stdin.once('data', resolve));

const created: string[] = [];
const shared: string[] = [];
for (let index = 0; index < count; index++) {
  // Every writer appends the same shared turn: exactly one process may store it.
  const [own] = await store.appendPath(scope, {
    parentId: null,
    messages: [userTurn(`${label} ${index}`)],
  });
  const [same] = await store.appendPath(scope, {
    parentId: null,
    messages: [userTurn(`shared ${index}`)],
  });
  if (own?.created === true) created.push(own.message.id);
  if (same !== undefined) shared.push(same.message.id);
}
await store.close();
process.stdout.write(`${JSON.stringify({ created, shared })}\n`);
process.stdin.destroy();
