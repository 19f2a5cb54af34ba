import { createServer } from 'node:http';
import { Pool } from 'undici';

/**
 * The floor for `bench:enrichment` section 3: the least a server between a client and `/v1/search`
 * can do. It reads the JSON body, sends its `variables.q` lookups to the search in calls of 100
 * (undici, keep-alive, as the gateway's client), and answers `{ data: { enrich: [...] } }` with each
 * lookup's id and best merchant name. No sessions, no GraphQL, no validation, no logging.
 */
const upstream = new Pool(process.env.ENRICHMENT_URL!, { connections: 32 });
const authorization = `Bearer ${process.env.ENRICHMENT_KEY!}`;

interface Item {
  id: string;
  results: Array<{ confidence: number; merchant?: { name?: string } }>;
}

async function search(lookups: Array<{ description: string }>, offset: number): Promise<Item[]> {
  const response = await upstream.request({
    method: 'POST',
    path: '/v1/search',
    headers: { authorization, 'content-type': 'application/json' },
    body: JSON.stringify(
      lookups.map((lookup, index) => ({ id: `q${offset + index}`, description: lookup.description })),
    ),
  });
  return ((await response.body.json()) as { items: Item[] }).items;
}

createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const lookups = (
      JSON.parse(Buffer.concat(chunks).toString()) as { variables: { q: Array<{ id: string; description: string }> } }
    ).variables.q;
    const calls = [];
    for (let offset = 0; offset < lookups.length; offset += 100)
      calls.push(search(lookups.slice(offset, offset + 100), offset));
    void Promise.all(calls).then((answers) => {
      const byId = new Map(answers.flat().map((item) => [item.id, item.results]));
      const enrich = lookups.map((lookup, index) => {
        const best = byId
          .get(`q${index}`)
          ?.reduce<Item['results'][number] | undefined>(
            (top, result) => (!top || result.confidence > top.confidence ? result : top),
            undefined,
          );
        return { id: lookup.id, merchant: best?.merchant ? { name: best.merchant.name ?? null } : null };
      });
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ data: { enrich } }));
    });
  });
}).listen(Number(process.env.PORT), '127.0.0.1', () => console.log('enrichment floor listening'));

// Exit cleanly when the benchmark stops it (so `--cpu-prof` can write its profile).
process.on('SIGTERM', () => process.exit(0));
