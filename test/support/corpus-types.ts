/** One request of the corpus: where it goes and what it carries. */
export interface CorpusRequest {
  name: string;
  method?: string;
  /** Path under the proxy origin. */
  path: string;
  headers?: Record<string, string>;
  /** A string is sent as is; bytes for invalid UTF-8; a stream for bodies without content-length. */
  body?: string | Uint8Array | (() => ReadableStream<Uint8Array>);
}

/** A request the proxy must refuse with a 4xx in OpenAI's error shape. */
export interface BadCase extends CorpusRequest {
  status?: number;
  code?: string;
  param?: string;
}

/** What the corpus is built for: the scope it writes to and the limits the proxy runs with. */
export interface CorpusScope {
  partition: string;
  instance: string;
  maxBodyBytes: number;
  maxMessages: number;
}

/** A request the proxy must answer 200: odd but valid input, and search text that looks like query syntax. */
export interface GoodCase extends CorpusRequest {
  /** The text a fake upstream should search memory for with search_and_retrieve, if any. */
  search?: string;
}

/** A user message (content given as is, so tests can pass any type). */
export const user = (content: unknown = 'hello') => ({ role: 'user', content });
/** A minimal valid chat request body. */
export const valid = () => ({ model: 'gpt-4o-mini', messages: [user()] });

/** The chat route of a corpus scope. */
export const chatPath = (scope: CorpusScope) =>
  `/partition/${scope.partition}/instance/${scope.instance}/v1/chat/completions`;
