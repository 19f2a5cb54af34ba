import { createHash } from 'node:crypto';
import type { Adapter, AdapterPayload } from 'oidc-provider';
import type { Clock } from '@open-finance-gateway/common/clock';
import { loadRsaKey } from '../lib/key-file.js';

export type ModelStore = Map<string, { payload: AdapterPayload; expiresAt?: number }>;

/** Storage for oidc-provider's models, in memory; the app's clients come from the provider (the web client's redirect URIs grow as gateways register). */
export class SandboxAdapter implements Adapter {
  constructor(
    private readonly name: string,
    /** This model's entries, owned by one provider (and gone with it). */
    private readonly store: ModelStore,
    private readonly clients: () => AdapterPayload[],
    private readonly clock: Clock,
  ) {}

  async upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
    this.store.set(id, { payload, expiresAt: expiresIn ? this.clock() + expiresIn * 1000 : undefined });
  }

  async find(id: string): Promise<AdapterPayload | undefined> {
    if (this.name === 'Client') return this.clients().find((client) => client.client_id === id);
    const entry = this.store.get(id);
    if (!entry) return undefined;
    if (entry.expiresAt !== undefined && entry.expiresAt <= this.clock()) {
      this.store.delete(id);
      return undefined;
    }
    return entry.payload;
  }

  async findByUid(uid: string): Promise<AdapterPayload | undefined> {
    for (const [id, entry] of this.store) if (entry.payload.uid === uid) return this.find(id);
    return undefined;
  }

  async findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
    for (const [id, entry] of this.store) if (entry.payload.userCode === userCode) return this.find(id);
    return undefined;
  }

  async consume(id: string): Promise<void> {
    const entry = this.store.get(id);
    if (entry) entry.payload.consumed = Math.floor(this.clock() / 1000);
  }

  async destroy(id: string): Promise<void> {
    this.store.delete(id);
  }

  async revokeByGrantId(grantId: string): Promise<void> {
    for (const [id, entry] of this.store) if (entry.payload.grantId === grantId) this.store.delete(id);
  }
}

/** The ID-token signing key, read once per process (see loadRsaKey); its id names the key. */
let cachedJwk: Record<string, unknown> | undefined;
export function signingJwk(): Record<string, unknown> {
  if (!cachedJwk) {
    const jwk = loadRsaKey('identity-signing-key').export({ format: 'jwk' });
    const kid = createHash('sha256').update(String(jwk.n)).digest('base64url').slice(0, 11);
    cachedJwk = { ...jwk, kid, use: 'sig', alg: 'RS256' };
  }
  return cachedJwk;
}
