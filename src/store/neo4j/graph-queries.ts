import { NEIGHBOUR_SCORES } from '../memory-store';
import type { Neighbour, Synapse } from '../types';
import { strongestNeighbours } from '../strongest-neighbours';
import { optionalMessage, projectMessageIfWanted, toNumber } from './map-record';
import { scopeParams, type ScopedRunner } from './scope-params';

/** Synapses between a turn and live turns, either direction, strongest first. */
export async function getSynapses(scoped: ScopedRunner, id: string): Promise<Synapse[]> {
  const { runner, scope } = scoped;
  const rows = await runner.read(
    `MATCH (m:Message {id: $id, partition: $partition, instance: $instance})-[link:SYNAPSE]-(other:Message)
     WHERE other.partition = $partition AND other.instance = $instance AND other.deleted = false
     RETURN startNode(link).id AS fromId, endNode(link).id AS toId, link.score AS score
     ORDER BY score DESC, fromId, toId`,
    { id, ...scopeParams(scope) },
  );
  return rows.map((row) => ({
    fromId: String(row['fromId']),
    toId: String(row['toId']),
    score: toNumber(row['score']) ?? 0,
  }));
}

/**
 * Live neighbours of the given turns over SYNAPSE (its score), RESPONDED_WITH and REPLIES_TO
 * (NEIGHBOUR_SCORES), both directions, excluding the given ids: each once, with its strongest
 * link, strongest first, ties by id, as the embedded store ranks them.
 */
export async function neighbours(
  scoped: ScopedRunner,
  options: { ids: string[]; limit: number; withMessages: boolean },
): Promise<Neighbour[]> {
  const { runner, scope } = scoped;
  if (options.ids.length === 0 || options.limit <= 0) return [];
  const ids = [...new Set(options.ids)];
  const rows = await runner.read(
    `UNWIND $ids AS sourceId
     MATCH (source:Message {id: sourceId})-[link:SYNAPSE|RESPONDED_WITH|REPLIES_TO]-(other:Message)
     WHERE source.partition = $partition AND source.instance = $instance
       AND other.partition = $partition AND other.instance = $instance
       AND other.deleted = false AND NOT other.id IN $ids
     RETURN other.id AS id, source.id AS fromId, type(link) AS via,
            CASE type(link)
              WHEN 'SYNAPSE' THEN link.score
              WHEN 'RESPONDED_WITH' THEN $respondedWithScore
              ELSE $repliesToScore
            END AS score,
            ${projectMessageIfWanted('other')} AS message`,
    {
      ids,
      withMessages: options.withMessages,
      respondedWithScore: NEIGHBOUR_SCORES.RESPONDED_WITH,
      repliesToScore: NEIGHBOUR_SCORES.REPLIES_TO,
      ...scopeParams(scope),
    },
  );
  const links = rows.map((row): Neighbour => ({
    id: String(row['id']),
    fromId: String(row['fromId']),
    via: row['via'] as Neighbour['via'],
    score: toNumber(row['score']) ?? 0,
    ...optionalMessage(row['message']),
  }));
  return strongestNeighbours(links, options.limit);
}
