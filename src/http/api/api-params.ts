import type { Context } from 'hono';
import { InvalidRequestError, NotFoundError } from '../../errors';
import type { Scope, TurnRole } from '../../store/types';
import type { AppEnv } from '../app-env';
import { readJsonBody } from '../read-json-body';
import { validateScopeName } from '../scope';

const ROLES: readonly TurnRole[] = ['user', 'assistant', 'tool'];
/** Ids are ULIDs; anything much longer is no id of ours and never reaches the store. */
const MAX_ID_LENGTH = 128;

/** The partition and instance a management route names in its path, validated. */
export function pathScope(c: Context<AppEnv>): Scope {
  return {
    partition: validateScopeName(c.req.param('partition') ?? '', 'partition'),
    instance: validateScopeName(c.req.param('instance') ?? '', 'instance'),
  };
}

/** The message id a route names in its path. */
export function pathMessageId(c: Context<AppEnv>): string {
  const id = c.req.param('id') ?? '';
  if (id === '' || id.length > MAX_ID_LENGTH)
    throw new NotFoundError(`No message with id ${JSON.stringify(id.slice(0, 140))}.`, 'id');
  return id;
}

/** A whole-number query parameter within bounds, or the fallback when absent. */
export function intParam(
  c: Context<AppEnv>,
  name: string,
  bounds: { min: number; max: number },
): number | undefined {
  const raw = c.req.query(name);
  if (raw === undefined || raw === '') return undefined;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < bounds.min || value > bounds.max) {
    throw new InvalidRequestError(
      `'${name}' must be a whole number from ${bounds.min} to ${bounds.max}; got ${JSON.stringify(raw.slice(0, 40))}.`,
      {
        param: name,
        code: 'invalid_parameter',
      },
    );
  }
  return value;
}

/** A time query parameter: an ISO 8601 date or milliseconds since the epoch. */
export function timeParam(c: Context<AppEnv>, name: string): number | undefined {
  const raw = c.req.query(name);
  if (raw === undefined || raw === '') return undefined;
  const value = /^\d+$/.test(raw) ? Number(raw) : Date.parse(raw);
  if (!Number.isFinite(value)) {
    throw new InvalidRequestError(
      `'${name}' must be an ISO 8601 date or milliseconds since the epoch.`,
      { param: name, code: 'invalid_parameter' },
    );
  }
  return value;
}

/** `role=user,assistant`: a comma-separated subset of the stored roles. */
export function rolesParam(c: Context<AppEnv>): TurnRole[] | undefined {
  const raw = c.req.query('role');
  if (raw === undefined || raw === '') return undefined;
  const roles = raw.split(',').map((role) => role.trim());
  for (const role of roles) {
    if (!(ROLES as readonly string[]).includes(role)) {
      throw new InvalidRequestError(
        `'role' takes ${ROLES.join(', ')} (comma-separated); got ${JSON.stringify(role.slice(0, 40))}.`,
        {
          param: 'role',
          code: 'invalid_parameter',
        },
      );
    }
  }
  return roles as TurnRole[];
}

/** A true/false query parameter (absent: false). */
export function flagParam(c: Context<AppEnv>, name: string): boolean {
  const raw = c.req.query(name);
  if (raw === undefined || raw === '' || raw === 'false' || raw === '0') return false;
  if (raw === 'true' || raw === '1') return true;
  throw new InvalidRequestError(`'${name}' must be true or false.`, {
    param: name,
    code: 'invalid_parameter',
  });
}

/** The request body as a JSON object, within the proxy's body limit. */
export async function jsonObjectBody(
  c: Context<AppEnv>,
  maxBytes: number,
): Promise<Record<string, unknown>> {
  const body = await readJsonBody(c.req.raw, maxBytes);
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new InvalidRequestError('The request body must be a JSON object.', {
      code: 'invalid_body',
    });
  }
  return body as Record<string, unknown>;
}

/** A required non-empty string field of a body. */
export function stringField(body: Record<string, unknown>, name: string): string {
  const value = body[name];
  if (typeof value !== 'string' || value.trim() === '') {
    throw new InvalidRequestError(`'${name}' must be a non-empty string.`, {
      param: name,
      code: 'invalid_parameter',
    });
  }
  return value;
}
