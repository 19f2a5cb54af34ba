import { createHash } from 'node:crypto';

/**
 * Deterministic platform-style ids (`<prefix>_<25 lowercase alphanumerics>`) derived from a seed,
 * so the sandbox's merchants, categories and demo users keep the same ids across restarts.
 */
export function sandboxId(prefix: string, seed: string): string {
  const digest = createHash('sha256').update(`${prefix}:${seed}`).digest();
  let body = 'c';
  for (let i = 0; body.length < 25; i += 1) body += (digest[i % digest.length]! % 36).toString(36);
  return `${prefix}_${body}`;
}
