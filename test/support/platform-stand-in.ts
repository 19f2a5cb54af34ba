/**
 * A stand-in for the platform's webhook sender: it signs each body as the platform does (RSA-SHA256,
 * PKCS#1 v1.5, over the exact bytes; signature and key id in two headers) and, like the platform,
 * treats anything but a 2xx within the attempt timeout as a failed delivery and retries it. The
 * platform retries about hourly for three days; here the backoff is milliseconds and the number of
 * attempts bounded, so a test ends. Speaks HTTP only: the key it signs with is served by whatever
 * core API the gateway was given.
 */
export interface SignedBody {
  signature: string;
  keyId: number;
}

export interface Attempt {
  target: string;
  /** The HTTP status, or 0 for a network error or a timeout. */
  status: number;
  /** The JSON `status` field of a 2xx answer (published, duplicate, ignored…). */
  answer?: string;
  /** performance.now() when the attempt was sent and when its answer (or failure) came. */
  startedAt: number;
  endedAt: number;
}

export interface Delivery {
  id: string;
  body: string;
  attempts: Attempt[];
  /** True once an attempt got a 2xx: the platform then counts the event as delivered. */
  acknowledged: boolean;
  /** The `status` of the acknowledging answer. */
  answer?: string;
}

export interface PlatformStandInOptions {
  sign(body: Buffer): SignedBody;
  /** The webhook URLs behind the platform's one registered URL (a load balancer: round robin). */
  targets(): string[];
  /** @default 'X-Service' */
  headerPrefix?: string;
  /** The platform gives up on an attempt after 5 s. @default 5000 */
  attemptTimeoutMs?: number;
  /** @default 40 */
  maxAttempts?: number;
  /** First backoff, doubled per failed attempt up to `maxBackoffMs`. @default 25 */
  backoffMs?: number;
  /** @default 400 */
  maxBackoffMs?: number;
}

export interface PlatformStandIn {
  /** Delivers one body until a 2xx (or the attempts run out); resolves with its record. */
  deliver(id: string, body: string): Promise<Delivery>;
  readonly deliveries: Delivery[];
}

export function createPlatformStandIn(options: PlatformStandInOptions): PlatformStandIn {
  const prefix = options.headerPrefix ?? 'X-Service';
  const maxAttempts = options.maxAttempts ?? 40;
  const deliveries: Delivery[] = [];
  let turn = 0;

  async function attempt(target: string, body: string): Promise<Attempt> {
    const signed = options.sign(Buffer.from(body));
    const startedAt = performance.now();
    try {
      const response = await fetch(target, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          [`${prefix}-Signature`]: signed.signature,
          [`${prefix}-Signing-Key`]: String(signed.keyId),
        },
        body,
        signal: AbortSignal.timeout(options.attemptTimeoutMs ?? 5_000),
      });
      const text = await response.text();
      let answer: string | undefined;
      try {
        answer = (JSON.parse(text) as { status?: string }).status;
      } catch {
        answer = undefined;
      }
      return { target, status: response.status, answer, startedAt, endedAt: performance.now() };
    } catch {
      return { target, status: 0, startedAt, endedAt: performance.now() };
    }
  }

  return {
    deliveries,
    async deliver(id, body) {
      const delivery: Delivery = { id, body, attempts: [], acknowledged: false };
      deliveries.push(delivery);
      let backoff = options.backoffMs ?? 25;
      for (let n = 0; n < maxAttempts; n += 1) {
        const targets = options.targets();
        const result = await attempt(targets[turn++ % targets.length]!, body);
        delivery.attempts.push(result);
        if (result.status >= 200 && result.status < 300) {
          delivery.acknowledged = true;
          delivery.answer = result.answer;
          return delivery;
        }
        // The platform's retry schedule (hourly there), not a test waiting for something.
        await new Promise((resolve) => setTimeout(resolve, backoff));
        backoff = Math.min(backoff * 2, options.maxBackoffMs ?? 400);
      }
      return delivery;
    },
  };
}
