/**
 * A problem the model can fix (bad arguments, an unknown id, a refused write): its message goes
 * back to the model as the tool result instead of failing the request.
 */
export class ToolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ToolError';
  }
}
