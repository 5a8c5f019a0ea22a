import { randomUUID } from 'node:crypto';

/** A function tool call as an assistant message carries it. */
export interface AssistantToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

/** The assistant message exactly as a client sends it back in history. */
export interface AssistantMessage {
  role: 'assistant';
  content: string | null;
  refusal?: string;
  tool_calls?: AssistantToolCall[];
  function_call?: { name: string; arguments: string };
}

/** Token usage as upstream reported it; provider extras (details, cache counts) are kept. */
export interface ChatUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  [key: string]: unknown;
}

/** One choice of a non-streaming completion. */
export interface ChatCompletionChoice {
  index: number;
  message: Omit<AssistantMessage, 'refusal'> & { refusal: string | null; [key: string]: unknown };
  logprobs: { content: unknown[] | null; refusal: unknown[] | null } | null;
  finish_reason: string | null;
  [key: string]: unknown;
}

/** A non-streaming `chat.completion` body. */
export interface ChatCompletion {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  choices: ChatCompletionChoice[];
  usage?: ChatUsage;
  system_fingerprint?: string | null;
  service_tier?: string | null;
  [key: string]: unknown;
}

interface ToolCallState {
  index: number | undefined;
  id: string | undefined;
  type: string | undefined;
  name: string | undefined;
  arguments: string;
}

interface ChoiceState {
  index: number;
  content: string;
  refusal: string | null;
  reasoningField: string | undefined;
  reasoning: string;
  toolCalls: ToolCallState[];
  lastToolCall: ToolCallState | undefined;
  functionCall: { name: string; arguments: string } | undefined;
  annotations: unknown[] | undefined;
  logprobs: { content: unknown[] | null; refusal: unknown[] | null } | undefined;
  finishReason: string | null;
  extras: Record<string, unknown>;
}

const CHUNK_FIELDS = new Set([
  'id',
  'object',
  'created',
  'model',
  'choices',
  'usage',
  'system_fingerprint',
  'service_tier',
  'error',
]);
// Chunk-only padding (OpenAI's stream obfuscation) must not leak into a completion body.
const CHUNK_ONLY_FIELDS = new Set(['obfuscation']);
const CHOICE_FIELDS = new Set(['index', 'delta', 'logprobs', 'finish_reason']);
// vLLM and llama.cpp name it reasoning_content, Ollama and OpenRouter name it reasoning.
const REASONING_FIELDS = ['reasoning_content', 'reasoning'] as const;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function nonEmpty(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** A string replaces what was seen; an explicit null counts only while nothing else was. */
function stringOrNull(
  previous: string | null | undefined,
  value: unknown,
): string | null | undefined {
  if (typeof value === 'string') return value;
  return value === null && previous === undefined ? null : previous;
}

/** The text of a delta's content: a string, or the text parts of an array (Mistral-style). */
function textOf(content: unknown): string | undefined {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return undefined;
  return content
    .map((part) => (isRecord(part) && typeof part['text'] === 'string' ? part['text'] : ''))
    .join('');
}

/** The shadow copy of a streamed answer: fed every chunk, it assembles what the client received. */
export class ChatAccumulator {
  #id: string | undefined;
  #model: string | undefined;
  #created: number | undefined;
  #systemFingerprint: string | null | undefined;
  #serviceTier: string | null | undefined;
  #usage: ChatUsage | null = null;
  #error: unknown = undefined;
  #extras: Record<string, unknown> = {};
  readonly #choices = new Map<number, ChoiceState>();

  /** Folds one parsed chunk in; anything that is not a chunk-shaped object is ignored. */
  add(chunk: unknown): void {
    if (!isRecord(chunk)) return;
    if (chunk['error'] !== undefined && chunk['error'] !== null) this.#error = chunk['error'];
    // The first non-empty value wins: Azure opens with a choice-less chunk whose id and model
    // are empty and whose created is 0.
    this.#id ??= nonEmpty(chunk['id']);
    this.#model ??= nonEmpty(chunk['model']);
    const created = chunk['created'];
    if (typeof created === 'number' && created > 0) this.#created ??= created;
    this.#systemFingerprint = stringOrNull(this.#systemFingerprint, chunk['system_fingerprint']);
    this.#serviceTier = stringOrNull(this.#serviceTier, chunk['service_tier']);
    // Last one wins: some servers repeat cumulative usage on every chunk (vLLM continuous_usage_stats).
    if (isRecord(chunk['usage'])) this.#usage = chunk['usage'] as ChatUsage;
    for (const [key, value] of Object.entries(chunk)) {
      if (!CHUNK_FIELDS.has(key) && !CHUNK_ONLY_FIELDS.has(key)) this.#extras[key] = value;
    }
    const choices = chunk['choices'];
    if (!Array.isArray(choices)) return;
    choices.forEach((raw: unknown, position) => {
      if (!isRecord(raw)) return;
      const index = typeof raw['index'] === 'number' ? raw['index'] : position;
      this.#applyChoice(this.#choice(index), raw);
    });
  }

  /** Upstream's id for the completion, once a chunk carried one. */
  get id(): string | undefined {
    return this.#id;
  }

  /** The model upstream says answered. */
  get model(): string | undefined {
    return this.#model;
  }

  /** The finish reason of choice 0, or null while the stream has not finished it. */
  get finishReason(): string | null {
    return this.#choices.get(0)?.finishReason ?? null;
  }

  /** Usage from the usage chunk (or whichever chunk carried it last), else null. */
  get usage(): ChatUsage | null {
    return this.#usage;
  }

  /** Whether choice 0 called at least one tool. */
  get hasToolCalls(): boolean {
    return (this.#choices.get(0)?.toolCalls.length ?? 0) > 0;
  }

  /** The `error` object of an error frame upstream sent inside the stream, if any. */
  get error(): unknown {
    return this.#error;
  }

  /** The assembled assistant message of a choice, with its tool calls finalized. */
  toMessage(choiceIndex = 0): AssistantMessage {
    const choice = this.#choices.get(choiceIndex);
    if (choice === undefined) return { role: 'assistant', content: '' };
    const toolCalls = this.#finalToolCalls(choice);
    // OpenAI answers null when there is no text beside tool calls or a refusal; a bare
    // assistant message needs a string, or the next request that carries it is rejected.
    const hasOther =
      toolCalls.length > 0 || choice.refusal !== null || choice.functionCall !== undefined;
    const message: AssistantMessage = {
      role: 'assistant',
      content: choice.content !== '' ? choice.content : hasOther ? null : '',
    };
    if (choice.refusal !== null) message.refusal = choice.refusal;
    if (toolCalls.length > 0) message.tool_calls = toolCalls;
    if (choice.functionCall !== undefined) message.function_call = { ...choice.functionCall };
    return message;
  }

  /** A non-streaming `chat.completion` body equivalent to the stream. */
  toCompletion(): ChatCompletion {
    const indices = [...this.#choices.keys()].sort((a, b) => a - b);
    if (!indices.includes(0)) indices.unshift(0);
    const choices = indices.map((index): ChatCompletionChoice => {
      const choice = this.#choices.get(index);
      const { refusal, ...message } = this.toMessage(index);
      const full: ChatCompletionChoice['message'] = { ...message, refusal: refusal ?? null };
      if (choice?.annotations !== undefined) full['annotations'] = choice.annotations;
      if (choice?.reasoningField !== undefined) full[choice.reasoningField] = choice.reasoning;
      return {
        index,
        message: full,
        logprobs: choice?.logprobs ?? null,
        finish_reason: choice?.finishReason ?? null,
        ...choice?.extras,
      };
    });
    const completion: ChatCompletion = {
      id: this.#id ?? '',
      object: 'chat.completion',
      created: this.#created ?? Math.floor(Date.now() / 1000),
      model: this.#model ?? '',
      choices,
    };
    if (this.#usage !== null) completion.usage = this.#usage;
    if (this.#serviceTier !== undefined) completion.service_tier = this.#serviceTier;
    if (this.#systemFingerprint !== undefined)
      completion.system_fingerprint = this.#systemFingerprint;
    return { ...this.#extras, ...completion };
  }

  #choice(index: number): ChoiceState {
    let choice = this.#choices.get(index);
    if (choice === undefined) {
      choice = {
        index,
        content: '',
        refusal: null,
        reasoningField: undefined,
        reasoning: '',
        toolCalls: [],
        lastToolCall: undefined,
        functionCall: undefined,
        annotations: undefined,
        logprobs: undefined,
        finishReason: null,
        extras: {},
      };
      this.#choices.set(index, choice);
    }
    return choice;
  }

  #applyChoice(choice: ChoiceState, raw: Record<string, unknown>): void {
    const delta = raw['delta'];
    if (isRecord(delta)) {
      choice.content += textOf(delta['content']) ?? '';
      if (typeof delta['refusal'] === 'string')
        choice.refusal = (choice.refusal ?? '') + delta['refusal'];
      for (const field of REASONING_FIELDS) {
        const text = delta[field];
        if (typeof text !== 'string') continue;
        choice.reasoningField ??= field;
        choice.reasoning += text;
      }
      if (Array.isArray(delta['tool_calls'])) this.#mergeToolCalls(choice, delta['tool_calls']);
      const functionCall = delta['function_call'];
      if (isRecord(functionCall)) {
        choice.functionCall ??= { name: '', arguments: '' };
        choice.functionCall.name ||= nonEmpty(functionCall['name']) ?? '';
        if (typeof functionCall['arguments'] === 'string')
          choice.functionCall.arguments += functionCall['arguments'];
      }
      if (Array.isArray(delta['annotations']))
        choice.annotations = [...(choice.annotations ?? []), ...delta['annotations']];
    }
    if (typeof raw['finish_reason'] === 'string') choice.finishReason = raw['finish_reason'];
    const logprobs = raw['logprobs'];
    if (isRecord(logprobs)) {
      choice.logprobs ??= { content: null, refusal: null };
      for (const key of ['content', 'refusal'] as const) {
        const items = logprobs[key];
        if (Array.isArray(items))
          choice.logprobs[key] = [...(choice.logprobs[key] ?? []), ...items];
      }
    }
    for (const [key, value] of Object.entries(raw)) {
      if (!CHOICE_FIELDS.has(key)) choice.extras[key] = value;
    }
  }

  #mergeToolCalls(choice: ChoiceState, items: unknown[]): void {
    items.forEach((item: unknown, position) => {
      if (!isRecord(item)) return;
      const call = this.#findToolCall(choice, item, position, items.length);
      // Id, type and name come from the first fragment that carries them; some servers repeat
      // them on every fragment, and appending those would corrupt the call.
      call.id ??= nonEmpty(item['id']);
      call.type ??= nonEmpty(item['type']);
      const fn = item['function'];
      if (isRecord(fn)) {
        call.name ??= nonEmpty(fn['name']);
        const args = fn['arguments'];
        // A few servers send parsed arguments; history must carry the JSON text.
        if (typeof args === 'string') call.arguments += args;
        else if (isRecord(args)) call.arguments += JSON.stringify(args);
      }
      choice.lastToolCall = call;
    });
  }

  /** Which call a tool-call delta continues: by index, else by id, else by position or the last one. */
  #findToolCall(
    choice: ChoiceState,
    item: Record<string, unknown>,
    position: number,
    count: number,
  ): ToolCallState {
    const index = typeof item['index'] === 'number' ? item['index'] : undefined;
    const id = typeof item['id'] === 'string' && item['id'] !== '' ? item['id'] : undefined;
    let call: ToolCallState | undefined;
    if (index !== undefined) call = choice.toolCalls.find((candidate) => candidate.index === index);
    // Without an index, a new id starts a new call even right after another one (Gemini-style).
    else if (id !== undefined) call = choice.toolCalls.find((candidate) => candidate.id === id);
    else if (count > 1) call = choice.toolCalls[position];
    else call = choice.lastToolCall;
    if (call !== undefined) return call;
    const created: ToolCallState = {
      index,
      id: undefined,
      type: undefined,
      name: undefined,
      arguments: '',
    };
    choice.toolCalls.push(created);
    return created;
  }

  #finalToolCalls(choice: ChoiceState): AssistantToolCall[] {
    const calls = [...choice.toolCalls];
    if (calls.every((call) => call.index !== undefined))
      calls.sort((a, b) => (a.index ?? 0) - (b.index ?? 0));
    return calls.map((call) => {
      // A client must be able to answer the call with a tool message, so it needs an id; one is
      // minted once and kept, so every later toMessage() agrees.
      call.id ??= `call_${randomUUID().replaceAll('-', '').slice(0, 24)}`;
      return {
        id: call.id,
        type: 'function',
        function: { name: call.name ?? '', arguments: call.arguments },
      };
    });
  }
}
