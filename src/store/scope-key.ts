import type { Scope } from './types';

/** One string naming a scope, for maps keyed by scope (partition and instance never hold NUL). */
export function scopeKey(scope: Scope): string {
  return `${scope.partition}\u0000${scope.instance}`;
}

/** Whether two things (scopes, or rows and records that carry one) name the same scope. */
export function sameScope(a: Scope, b: Scope): boolean {
  return a.partition === b.partition && a.instance === b.instance;
}
