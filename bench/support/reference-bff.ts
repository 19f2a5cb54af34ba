import 'reflect-metadata';
import { ApolloServer } from '@apollo/server';
import { startStandaloneServer } from '@apollo/server/standalone';
import DataLoader from 'dataloader';
import {
  Arg,
  buildSchema,
  Ctx,
  Field,
  FieldResolver,
  Float,
  ID,
  InputType,
  Int,
  ObjectType,
  Query,
  Resolver,
  Root,
} from 'type-graphql';
import { Agent, request } from 'undici';

/**
 * The reference BFFs `bench:enrichment` compares the gateway with: Apollo Server and type-graphql,
 * the same page query, against the same sandbox, with the same connection cap. MODE `naive`: one
 * `/v1/search` per `Transaction.enrichment`, no cache. MODE `dataloader`: a DataLoader per request
 * (default tick), one search per batch of up to 100. `enrich(queries)` as the gateway's (its
 * queries through the same loader) for `bench:pipeline`'s one-hop workloads. No sessions: the user
 * token comes from the environment. Bench-only.
 */
const env = (name: string) =>
  process.env[name] ??
  (() => {
    throw new Error(`${name} is required`);
  })();
const MODE = env('MODE') as 'naive' | 'dataloader';
const agent = new Agent({ connections: Number(process.env.UPSTREAM_MAX_TCP_CONNECTIONS ?? 32) });

interface Row {
  _id: string;
  description: string;
  amount: number;
  _connection: string;
}
interface Item {
  id?: string;
  results: Array<{ merchant?: { name: string } }>;
}

async function call<T>(
  url: string,
  init: { method: string; headers: Record<string, string>; body?: string },
): Promise<T> {
  const response = await request(url, { ...init, dispatcher: agent });
  const body = (await response.body.json()) as T;
  if (response.statusCode >= 300) throw new Error(`${init.method} ${url}: ${response.statusCode}`);
  return body;
}

async function search(descriptions: Array<Pick<Row, 'description' | 'amount'>>): Promise<Item[]> {
  const queries = descriptions.map((row, index) => ({
    id: `q${index}`,
    description: row.description,
    amount: row.amount,
  }));
  const answer = await call<{ items: Item[] }>(`${env('ENRICHMENT_URL')}/v1/search`, {
    method: 'POST',
    headers: { authorization: `Bearer ${env('ENRICHMENT_KEY')}`, 'content-type': 'application/json' },
    body: JSON.stringify(queries),
  });
  return queries.map((query) => answer.items.find((item) => item.id === query.id) ?? { results: [] });
}

@ObjectType()
class Merchant {
  @Field(() => String) name!: string;
}

@ObjectType()
class Enrichment {
  @Field(() => Merchant, { nullable: true }) merchant?: Merchant;
}

@ObjectType()
class Transaction {
  @Field(() => ID) id!: string;
  @Field(() => String) description!: string;
  @Field(() => Float) amount!: number;
}

@InputType('EnrichmentQueryInput')
class EnrichmentQuery {
  @Field(() => ID) id!: string;
  @Field(() => String) description!: string;
  @Field(() => Float, { nullable: true }) amount?: number;
}

@ObjectType()
class Enriched {
  @Field(() => ID) id!: string;
  @Field(() => Merchant, { nullable: true }) merchant?: Merchant;
}

@ObjectType()
class TransactionPage {
  @Field(() => [Transaction]) nodes!: Transaction[];
}

interface Context {
  token: string;
  enrichment: DataLoader<Row, Item> | undefined;
}

@Resolver(() => Transaction)
class TransactionResolver {
  @Query(() => TransactionPage)
  async transactions(@Arg('first', () => Int) first: number, @Ctx() context: Context): Promise<TransactionPage> {
    const page = await call<{ items: Row[] }>(`${env('CORE_URL')}/v1/transactions`, {
      method: 'GET',
      headers: { authorization: `Bearer ${context.token}`, 'x-service-id': env('APP_TOKEN') },
    });
    return {
      nodes: page.items
        .slice(0, first)
        .map((row) =>
          Object.assign(new Transaction(), { id: row._id, description: row.description, amount: row.amount }),
        ),
    };
  }

  @FieldResolver(() => Enrichment, { nullable: true })
  async enrichment(@Root() row: Transaction, @Ctx() context: Context): Promise<Enrichment> {
    const item = context.enrichment ? await context.enrichment.load(row as unknown as Row) : (await search([row]))[0]!;
    const merchant = item.results[0]?.merchant;
    return { merchant: merchant ? { name: merchant.name } : undefined };
  }
}

/** `enrich(queries)` as the gateway names it: each query through the request's loader (or one search). */
@Resolver()
class EnrichResolver {
  @Query(() => [Enriched])
  async enrich(
    @Arg('queries', () => [EnrichmentQuery]) queries: EnrichmentQuery[],
    @Ctx() context: Context,
  ): Promise<Enriched[]> {
    // Sent as asked: no amount when the query has none (JSON drops `undefined`), as the gateway does.
    const rows = queries.map((query) => ({ description: query.description, amount: query.amount }) as Row);
    const items = context.enrichment ? await context.enrichment.loadMany(rows) : await search(rows);
    return queries.map((query, index) => {
      const item = items[index];
      if (item instanceof Error) throw item;
      const merchant = item?.results[0]?.merchant;
      return { id: query.id, merchant: merchant ? { name: merchant.name } : undefined };
    });
  }
}

async function main(): Promise<void> {
  const schema = await buildSchema({ resolvers: [TransactionResolver, EnrichResolver], validate: false });
  const server = new ApolloServer<Context>({ schema });
  const { url } = await startStandaloneServer(server, {
    listen: { port: Number(env('PORT')), host: '127.0.0.1' },
    context: async ({ req }) => ({
      token: req.headers.authorization?.replace(/^Bearer /, '') ?? env('USER_TOKEN'),
      enrichment:
        MODE === 'dataloader'
          ? new DataLoader<Row, Item, string>((rows) => search([...rows]), {
              maxBatchSize: 100,
              cacheKeyFn: (row) => `${row.description}|${row.amount}`,
            })
          : undefined,
    }),
  });
  console.log(`reference bff listening ${url}`);
}

void main();
