/** Variables the middleware sets on every request's context. */
export interface AppEnv {
  Variables: {
    requestId: string;
  };
}
