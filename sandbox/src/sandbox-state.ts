import type { IncomingHttpHeaders } from 'node:http';
import type { Clock } from '@open-finance-gateway/common/clock';
import type {
  SandboxAccount,
  SandboxParty,
  SandboxPendingTransaction,
  SandboxTransaction,
} from './model/core-model.js';

export interface SandboxCredentials {
  appToken: string;
  appSecret: string;
  enrichmentKey: string;
}

export interface SandboxUser {
  _id: string;
  email: string;
  preferred_name: string;
  /** When set, `POST /refresh` answers 403 with this message for the user. */
  sandboxRefreshForbidden?: string;
}

export interface AuthorizationCode {
  userId: string;
  clientId: string;
  redirectUri: string;
  scope: string;
  expiresAt: number;
  used: boolean;
  /** The token issued for this code, revoked if the code is ever replayed (RFC 6749 §4.1.2). */
  issuedToken?: string;
}

export interface UserToken {
  userId: string;
  scope: string;
  grantedAt: number;
  revoked: boolean;
}

/** One request as the sandbox received it: what tests assert the gateway sent upstream. */
export interface RecordedRequest {
  service: 'core' | 'enrichment';
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: unknown;
  at: number;
}

/**
 * Fault injection for one sandbox service, so gateway behaviour under failure can be shown.
 * Applies to API paths (`/v1/...`), never to the hosted OAuth pages.
 */
export interface ServiceFault {
  /** Answer with this status and a platform error body. */
  status?: number;
  /** Hold each request this long before answering (a hang when longer than the gateway's deadline). */
  delayMs?: number;
  /** Only requests whose path starts with this are affected. */
  pathPrefix?: string;
  /** Affect only this many requests, then clear (for retry tests). Unlimited when unset. */
  times?: number;
  /** Handle the request, then cut the connection instead of answering: the work was done, the answer is lost. */
  dropResponse?: boolean;
  /**
   * The error message quotes the request's credentials (its headers and body), as careless
   * services do: the gateway must never pass them on to a client or a log.
   */
  echoCredentials?: boolean;
}

export interface EnrichmentFault extends ServiceFault {
  /** Return items in reverse order, to prove the gateway correlates by id. */
  reverseOrder?: boolean;
}

const MAX_RECORDED_REQUESTS = 5_000;
/** The request log's bound in bytes (bodies and paths, plus an allowance for headers). */
const MAX_RECORDED_BYTES = 8 * 1024 * 1024;
const HEADER_ALLOWANCE_BYTES = 512;

/** Everything the sandbox remembers, in memory, for the life of the process. */
/**
 * Asks the app embedding this sandbox how old the oldest answer it still keeps for one platform
 * user is (ms), or undefined when it keeps none. Given the webhook `state`s the app registered for
 * that user (the app's own opaque handles, nothing personal). Only a gateway that starts this
 * sandbox in its own process gives one; the live platform has nothing like it.
 */
export type KeptDataProbe = (webhookStates: readonly string[]) => Promise<number | undefined>;

export class SandboxState {
  readonly users = new Map<string, SandboxUser>();
  readonly codes = new Map<string, AuthorizationCode>();
  readonly tokens = new Map<string, UserToken>();
  readonly redirectUris = new Set<string>();
  readonly requests: RecordedRequest[] = [];
  readonly accounts = new Map<string, SandboxAccount>();
  /** Settled transactions, kept in cursor order (newest first). */
  transactions: SandboxTransaction[] = [];
  pending: SandboxPendingTransaction[] = [];
  parties: SandboxParty[] = [];
  /** Last manual refresh per user, for the platform's once-per-5-minutes rule. */
  readonly lastRefreshAt = new Map<string, number>();
  enrichmentFault: EnrichmentFault = {};
  coreFault: ServiceFault = {};
  /** Set by an embedding gateway (`Sandbox.showKeptData`); the console shows its answers. */
  keptData: KeptDataProbe | undefined;

  /** Accounts the user has shared with the app (revoked or unshared ones are invisible). */
  visibleAccounts(userId: string): SandboxAccount[] {
    return [...this.accounts.values()].filter((account) => account.sandboxUserId === userId && account.sandboxShared);
  }

  constructor(
    readonly credentials: SandboxCredentials,
    readonly clock: Clock,
  ) {}

  /** Told of each request as it arrives, so tests wait on the event rather than poll. */
  readonly requestListeners = new Set<(request: RecordedRequest) => void>();

  /**
   * Whether requests are kept for `requests()`: only when a test or benchmark asks (an embedded
   * sandbox under `npm start` keeps none). Kept at most 5,000 and 8 MiB, oldest dropped first.
   */
  recordRequests = false;
  private readonly recordedSizes: number[] = [];
  private recordedBytes = 0;

  /** The first request (already recorded, or still to come) that matches. */
  nextRequest(match: (request: RecordedRequest) => boolean): Promise<RecordedRequest> {
    const seen = this.requests.find(match);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve) => {
      const listener = (request: RecordedRequest) => {
        if (!match(request)) return;
        this.requestListeners.delete(listener);
        resolve(request);
      };
      this.requestListeners.add(listener);
    });
  }

  /** The recorded requests that match every field given. */
  recorded(filter: Partial<Pick<RecordedRequest, 'service' | 'method' | 'path'>>): RecordedRequest[] {
    // An empty answer would make "no call was made" assertions pass vacuously.
    if (!this.recordRequests) throw new Error('this sandbox keeps no request log: create it with recordRequests: true');
    return this.requests.filter(
      (r) =>
        (filter.service === undefined || r.service === filter.service) &&
        (filter.method === undefined || r.method === filter.method) &&
        (filter.path === undefined || r.path === filter.path),
    );
  }

  record(request: RecordedRequest, bodyBytes: number): void {
    for (const listener of this.requestListeners) listener(request);
    if (!this.recordRequests) return;
    const size = bodyBytes + request.path.length + HEADER_ALLOWANCE_BYTES;
    this.requests.push(request);
    this.recordedSizes.push(size);
    this.recordedBytes += size;
    while (
      this.requests.length > MAX_RECORDED_REQUESTS ||
      (this.recordedBytes > MAX_RECORDED_BYTES && this.requests.length > 1)
    ) {
      this.requests.shift();
      this.recordedBytes -= this.recordedSizes.shift()!;
    }
  }
}
