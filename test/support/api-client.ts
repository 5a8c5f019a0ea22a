/** A reply of the management API: its status and parsed JSON body. */
export interface ApiReply {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary response fields
  body: any;
}

/** Calls the management API of a running proxy with JSON in and out. */
export function apiClient(origin: string) {
  const call = async (method: string, path: string, body?: unknown): Promise<ApiReply> => {
    const response = await fetch(`${origin}${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: text === '' ? null : JSON.parse(text) };
  };
  return {
    get: (path: string) => call('GET', path),
    post: (path: string, body: unknown = {}) => call('POST', path, body),
    patch: (path: string, body: unknown) => call('PATCH', path, body),
    delete: (path: string) => call('DELETE', path),
  };
}

/** The management path of an instance. */
export function instancePath(scope: { partition: string; instance: string }): string {
  return `/api/v1/partitions/${scope.partition}/instances/${scope.instance}`;
}
