/**
 * A shared store (Redis) was unreachable or too slow. Requests are answered 503 with the code
 * SERVICE_UNAVAILABLE, never hung and never reported as done.
 */
export class StoreUnavailableError extends Error {
  constructor(cause: unknown) {
    super(`shared store unavailable: ${cause instanceof Error ? cause.message : String(cause)}`);
    this.name = 'StoreUnavailableError';
  }
}
