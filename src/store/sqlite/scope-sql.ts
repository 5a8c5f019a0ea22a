import { MESSAGE_COLUMNS, TOOL_CALL_COLUMNS } from './message-row';

/** Named parameters that confine a statement to one scope. */
export interface ScopeParams {
  partition: string;
  instance: string;
}

/** Parameters of a statement about one record of a scope. */
export type ByIdParams = ScopeParams & { id: string };
/** Parameters of a statement about several records of a scope; `ids` is a JSON array. */
export type ByIdsParams = ScopeParams & { ids: string };

/** The condition every statement carries: no read or write crosses scopes. */
export const IN_SCOPE = 'partition = @partition AND instance = @instance';
/** Messages of the scope, as MessageRow; callers append more conditions. */
export const SELECT_MESSAGES = `SELECT ${MESSAGE_COLUMNS} FROM messages WHERE ${IN_SCOPE}`;
/** Messages of the scope looked up by id (`AND id ...`), pinned to the id index. */
export const SELECT_MESSAGES_BY_ID = `SELECT ${MESSAGE_COLUMNS} FROM messages INDEXED BY messages_id
  WHERE ${IN_SCOPE}`;
/** Tool calls of the scope, as ToolCallRow; callers append more conditions. */
export const SELECT_TOOL_CALLS = `SELECT ${TOOL_CALL_COLUMNS} FROM tool_calls WHERE ${IN_SCOPE}`;
/** A column list (`a, b, c`, line breaks allowed) with each column qualified by a join's `alias`. */
export function qualifiedColumns(columns: string, alias: string): string {
  return columns
    .split(',')
    .map((column) => `${alias}.${column.trim()}`)
    .join(', ');
}
/** The ids of a `@ids` JSON array parameter, so a list never needs SQL built from text. */
export const IDS = 'SELECT value FROM json_each(@ids)';

/**
 * The named parameters of a scope (copied, so extra properties of the caller's object never bind).
 * Spread them last in a statement's parameters, `{ id, ...params }` (see eslint.config.js).
 */
export function scopeParams(scope: ScopeParams): ScopeParams {
  return { partition: scope.partition, instance: scope.instance };
}
