import type { ApiKeyGrant } from '../config/load-api-keys';

/** Variables the middleware sets on every request's context. */
export interface AppEnv {
  Variables: {
    requestId: string;
    /** The inbound API key's grant; unset when no PROXY_API_KEYS_FILE is configured. */
    grant?: ApiKeyGrant;
  };
}
