import { InvalidRequestError } from '../errors';
import type { Scope } from '../store/types';

/** Partition and instance names: letters, digits, dot, underscore and dash, 1 to 128 of them. */
export const SCOPE_NAME = /^[A-Za-z0-9._-]{1,128}$/;

/** The scope of the plain /v1 routes when no header names one. */
export const DEFAULT_SCOPE: Scope = { partition: 'default', instance: 'default' };

/** Checks a partition or instance name; `.` and `..` are refused so names stay safe as path segments. */
export function validateScopeName(value: string, param: 'partition' | 'instance'): string {
  if (!SCOPE_NAME.test(value) || value === '.' || value === '..') {
    throw new InvalidRequestError(
      `Invalid ${param} name ${JSON.stringify(value.slice(0, 140))}: use 1-128 characters from A-Z, a-z, 0-9, '.', '_' and '-'.`,
      { param, code: `invalid_${param}` },
    );
  }
  return value;
}

/** The scope of a request: from the path when it has one, else from headers, else the default. */
export function resolveScope(
  pathParams: { partition?: string | undefined; instance?: string | undefined },
  header: (name: string) => string | undefined,
): Scope {
  const partition = pathParams.partition ?? header('x-memory-partition') ?? DEFAULT_SCOPE.partition;
  const instance = pathParams.instance ?? header('x-memory-instance') ?? DEFAULT_SCOPE.instance;
  return {
    partition: validateScopeName(partition, 'partition'),
    instance: validateScopeName(instance, 'instance'),
  };
}
