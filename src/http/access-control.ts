import type { Context, MiddlewareHandler } from 'hono';
import type { ApiKeyGrant, ApiKeyTable } from '../config/load-api-keys';
import { hashApiKey } from '../config/load-api-keys';
import { AuthenticationError, PermissionDeniedError, RateLimitError } from '../errors';
import type { AppEnv } from './app-env';
import type { RateLimiter } from './rate-limiter';
import { DEFAULT_SCOPE } from './scope';

/** Paths any caller may reach: they carry no memory of any partition. */
const OPEN_PATHS = new Set(['/health', '/ready', '/metrics']);
/** Where a path names its partition: the proxy routes and the management API. */
const PARTITION_IN_PATH = /^\/(?:api\/v\d+\/)?partitions?\/([^/]+)/;
/** Management routes confined by a `partition` query parameter (the others ignore it). */
const PARTITION_IN_QUERY = new Set(['/api/v1/export']);
/** Routes that span partitions but show a key confined to some only its own (they filter with `mayUse`). */
const FILTERED_LISTINGS = new Set(['/api/v1/partitions', '/api/v1/stats', '/api/v1/export']);

/** Options of the access middleware. */
export interface AccessControlOptions {
  /** Inbound keys; null when the proxy asks for none. */
  keys: ApiKeyTable | null;
  /** Per-partition request rate; null when unlimited. */
  rateLimiter: RateLimiter | null;
  onRateLimited?: () => void;
}

/**
 * Authenticates the inbound API key (when keys are configured), confines it to its partitions
 * and applies the per-partition rate limit, before any route reads or writes memory. A
 * management route whose partition the path does not name is open only to keys granted every
 * partition, except the listings that show such a key its own partitions only (FILTERED_LISTINGS).
 */
export function accessControl(options: AccessControlOptions): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (OPEN_PATHS.has(c.req.path)) return next();
    if (options.keys) c.set('grant', authenticate(c.req.header('authorization'), options.keys));
    const partition = requestPartition(c);
    if (partition === null) {
      const grant = c.get('grant');
      if (
        grant &&
        grant.partitions !== 'all' &&
        c.req.path.startsWith('/api/') &&
        !(c.req.method === 'GET' && FILTERED_LISTINGS.has(c.req.path))
      ) {
        throw new PermissionDeniedError(
          'This route spans partitions; it needs an API key granted every partition ("*").',
          { code: 'partition_forbidden' },
        );
      }
    } else {
      assertPartitionAccess(c, partition);
      const decision = options.rateLimiter?.take(partition);
      if (decision && !decision.allowed) {
        options.onRateLimited?.();
        throw new RateLimitError(
          `Partition ${JSON.stringify(partition)} is over its limit of requests per minute; retry in ${decision.retryAfterSeconds} s.`,
          decision.retryAfterSeconds,
        );
      }
    }
    await next();
  };
}

/** Throws 403 unless the request's key (if keys are configured) may use `partition`. */
export function assertPartitionAccess(c: Context<AppEnv>, partition: string): void {
  const grant = c.get('grant');
  if (!grant || mayUse(grant, partition)) return;
  throw new PermissionDeniedError(
    `This API key may not use partition ${JSON.stringify(partition.slice(0, 140))}.`,
    { param: 'partition', code: 'partition_forbidden' },
  );
}

/** Whether a grant covers a partition; routes that list partitions filter with it. */
export function mayUse(grant: ApiKeyGrant | undefined, partition: string): boolean {
  return !grant || grant.partitions === 'all' || grant.partitions.has(partition);
}

/** The client's Authorization to forward upstream: never the proxy's own inbound key. */
export function forwardedAuthorization(c: Context<AppEnv>): string | null {
  return c.get('grant') ? null : (c.req.header('authorization') ?? null);
}

function authenticate(header: string | undefined, keys: ApiKeyTable): ApiKeyGrant {
  const key = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '')?.[1];
  if (key === undefined) {
    throw new AuthenticationError(
      'This proxy needs an API key: send it as "Authorization: Bearer <key>".',
    );
  }
  // A lookup by hash: the comparison never touches the key itself, so its timing reveals nothing.
  const grant = keys.get(hashApiKey(key));
  if (!grant) throw new AuthenticationError('Incorrect API key provided.');
  return grant;
}

/** The partition a request touches, as the routes resolve it; null when the path does not say. */
function requestPartition(c: Context<AppEnv>): string | null {
  const inPath = PARTITION_IN_PATH.exec(c.req.path)?.[1];
  if (inPath !== undefined) return decode(inPath);
  if (c.req.path.startsWith('/v1/'))
    return c.req.header('x-memory-partition') ?? DEFAULT_SCOPE.partition;
  if (PARTITION_IN_QUERY.has(c.req.path)) return c.req.query('partition') ?? null;
  return null;
}

function decode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
