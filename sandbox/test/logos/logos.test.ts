import { describe, expect, it } from 'vitest';
import { createLogger } from '@open-finance-gateway/common/logger';
import { MERCHANTS } from '../../src/data/merchants.js';
import { createSandbox } from '../../src/sandbox.js';
import { track } from '../support/leftovers.js';

const PNG_SIGNATURE = '89504e470d0a1a0a';

async function startedSandbox() {
  const sandbox = createSandbox({ logger: createLogger({ level: 'silent' }), headerPrefix: 'X-Service' });
  await sandbox.start();
  track(() => sandbox.stop());
  return sandbox;
}

/** A PNG's bytes, after checking the answer is one, 64 pixels square. */
async function png(url: string): Promise<Buffer> {
  const response = await fetch(url);
  expect(response.status, url).toBe(200);
  expect(response.headers.get('content-type')).toBe('image/png');
  const bytes = Buffer.from(await response.arrayBuffer());
  expect(bytes.subarray(0, 8).toString('hex')).toBe(PNG_SIGNATURE);
  expect([bytes.readUInt32BE(16), bytes.readUInt32BE(20)]).toEqual([64, 64]);
  return bytes;
}

async function searchLogos(sandbox: Awaited<ReturnType<typeof startedSandbox>>): Promise<Map<string, string>> {
  const response = await fetch(`${sandbox.enrichmentUrl}/v1/search`, {
    method: 'POST',
    headers: { authorization: `Bearer ${sandbox.credentials.enrichmentKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(MERCHANTS.map((merchant) => ({ description: merchant.sample, direction: 'DEBIT' }))),
  });
  const body = (await response.json()) as {
    items: Array<{ results: Array<{ merchant?: { name: string; logo: string } }> }>;
  };
  const logos = new Map<string, string>();
  for (const item of body.items) {
    const merchant = item.results[0]?.merchant;
    if (merchant) logos.set(merchant.name, merchant.logo);
  }
  return logos;
}

describe('the sandbox’s logos', () => {
  it('serves an image for every bank connection it lists', async () => {
    const sandbox = await startedSandbox();
    const { appToken, appSecret } = sandbox.credentials;
    const response = await fetch(`${sandbox.coreUrl}/v1/connections`, {
      headers: { authorization: `Basic ${Buffer.from(`${appToken}:${appSecret}`).toString('base64')}` },
    });
    const { items } = (await response.json()) as { items: Array<{ name: string; logo: string }> };
    const banks = new Map(items.map((connection) => [connection.name, connection.logo]));
    expect(banks.size).toBe(9);
    const images = await Promise.all([...banks.values()].map(png));
    expect(new Set(images.map((image) => image.toString('base64'))).size).toBe(banks.size);
  });

  it('serves a distinct image for every merchant with a logo, and the platform’s placeholder for the others', async () => {
    const sandbox = await startedSandbox();
    const logos = await searchLogos(sandbox);
    const withLogo = MERCHANTS.filter((merchant) => !merchant.noLogo);
    const without = MERCHANTS.filter((merchant) => merchant.noLogo);
    expect(without.length).toBeGreaterThan(0);
    for (const merchant of without) expect(logos.get(merchant.name)).toMatch(/\/logos\/merchants\/default\.png$/);
    const placeholder = await png(logos.get(without[0]!.name)!);

    const images = new Set<string>();
    for (const merchant of withLogo) {
      const url = logos.get(merchant.name);
      expect(url, merchant.name).toBeDefined();
      images.add((await png(url!)).toString('base64'));
    }
    expect(images.size).toBe(withLogo.length);
    expect(images.has(placeholder.toString('base64'))).toBe(false);
  });

  it('answers 404 for a logo it never handed out', async () => {
    const sandbox = await startedSandbox();
    for (const path of ['/logos/merchants/nobody.png', '/logos/connections/no-bank.png'])
      expect((await fetch(`${sandbox.enrichmentUrl}${path}`)).status).toBe(404);
  });
});
