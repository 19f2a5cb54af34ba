import 'reflect-metadata';
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { buildGatewaySchema, printGatewaySchema } from '../src/graphql/schema.js';

/** Writes schema.graphql from the code. The schema drift test fails until this is run and committed. */
async function main(): Promise<void> {
  const schema = await buildGatewaySchema({ enrichment: { maxQueriesPerRequest: 1000 } });
  const target = resolve(__dirname, '../schema.graphql');
  writeFileSync(target, printGatewaySchema(schema));
  process.stdout.write(`wrote ${target}\n`);
}

void main();
