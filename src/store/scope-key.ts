import type { Scope } from './types';

/** One string naming a scope, for maps keyed by scope (partition and instance never hold NUL). */
export function scopeKey(scope: Scope): string {
  return `${scope.partition}\u0000${scope.instance}`;
}
