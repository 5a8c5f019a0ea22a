/**
 * Lets pending I/O (requests) run before the next step of a background job: with the embedded
 * store a step never waits on I/O, so without this a long job would hold every request back.
 */
export function yieldToRequests(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
