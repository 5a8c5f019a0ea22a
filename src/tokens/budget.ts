/** The smallest and largest budgets the proxy will plan a request for. */
export const MIN_BUDGET = 100;
export const MAX_BUDGET = 800_000;

/** Inputs of the per-request token budget. */
export interface BudgetInput {
  contextWindow: number;
  /** Tokens kept free for the model's answer. */
  responseReserve: number;
  /** Tokens the tools array costs. */
  toolsTokens: number;
  /** Share of the window held back for tokenizer differences between model families (0..1). */
  safetyMargin: number;
}

/** budget = context_window - response_reserve - tokens(tools) - margin, clamped to [100, 800000]. */
export function computeBudget(input: BudgetInput): number {
  const margin = Math.ceil(input.contextWindow * input.safetyMargin);
  const raw = input.contextWindow - input.responseReserve - input.toolsTokens - margin;
  return Math.min(MAX_BUDGET, Math.max(MIN_BUDGET, Math.floor(raw)));
}
