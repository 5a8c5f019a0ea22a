import type { AppendedTurn, NewMessage, Scope } from '../types';
import { newStoredMessage } from './append-path';
import { projectMessage, toMessageProperties, toStoredMessage } from './map-record';
import { LATEST_TURN } from './message-queries';
import type { Neo4jRunner } from './neo4j-runner';
import { scopeParams } from './scope-params';

/** Inputs of continueLatest. */
export interface ContinueLatestOptions {
  runner: Neo4jRunner;
  scope: Scope;
  message: NewMessage;
  clock: () => number;
  newId: () => string;
}

// One auto-commit statement: take the instance lock, read the latest live turn and the question
// it answered, and unless the message repeats one of them (repeated-turn.ts, the same rule) store
// it as the latest turn's reply (latestTurn's lookup: the (partition, instance, seq) index read
// backwards). The row carries seq and branch_tokens relative to the latest turn.
const CONTINUE_LATEST = `
MERGE (i:Instance {partition: $partition, instance: $instance})
  ON CREATE SET i.last_seq = 0
SET i.locked_at = timestamp()
WITH i, i.last_seq AS lastSeq
CALL () {
  ${LATEST_TURN}
  RETURN collect(m)[0] AS latest
}
OPTIONAL MATCH (latest)-[:REPLIES_TO]->(question:Message)
WITH i, lastSeq, latest,
  CASE
    WHEN latest.content_hash = $contentHash AND latest.role = $role THEN latest
    WHEN latest.role = 'assistant' AND question.deleted = false
      AND question.content_hash = $contentHash AND question.role = $role THEN question
  END AS repeated
CALL (lastSeq, latest, repeated) {
  WITH lastSeq, latest WHERE repeated IS NULL
  CREATE (m:Message)
  SET m = $row, m.seq = m.seq + lastSeq, m.branch_tokens = m.branch_tokens + coalesce(latest.branch_tokens, 0)
  FOREACH (_ IN CASE WHEN latest IS NULL THEN [] ELSE [1] END | CREATE (m)-[:REPLIES_TO]->(latest))
  FOREACH (_ IN CASE WHEN latest.role = 'user' AND m.role = 'assistant' THEN [1] ELSE [] END |
    CREATE (latest)-[:RESPONDED_WITH]->(m))
}
SET i.last_seq = CASE WHEN repeated IS NULL THEN lastSeq + 1 ELSE lastSeq END
RETURN lastSeq, latest.id AS parentId, coalesce(latest.branch_tokens, 0) AS parentTokens,
       ${projectMessage('repeated')} AS repeated`;

/** The store's continueLatest (memory-store.ts) in one round trip. */
export async function continueLatest(options: ContinueLatestOptions): Promise<AppendedTurn> {
  const { runner, scope, message } = options;
  // Relative figures: the statement adds the instance counter and the latest turn's tokens.
  const stored = newStoredMessage({ ...options, parent: null, seq: 1 });
  const [row] = await runner.write(CONTINUE_LATEST, {
    contentHash: message.contentHash,
    role: message.role,
    row: toMessageProperties(stored),
    ...scopeParams(scope),
  });
  if (!row) throw new Error('continueLatest returned no row');
  if (row['repeated'] !== null && row['repeated'] !== undefined) {
    return { message: toStoredMessage(row['repeated']), created: false };
  }
  const parentId = row['parentId'];
  return {
    message: {
      ...stored,
      seq: stored.seq + Number(row['lastSeq']),
      branchTokens: stored.branchTokens + Number(row['parentTokens']),
      parentId: typeof parentId === 'string' ? parentId : null,
    },
    created: true,
  };
}
