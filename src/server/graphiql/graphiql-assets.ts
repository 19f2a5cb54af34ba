import { readFile } from 'node:fs/promises';
import { GRAPHIQL_INIT_SCRIPT } from './graphiql-init.js';

/**
 * The files GraphiQL needs, served from the gateway's own dependencies so the page works offline
 * and loads nothing from a CDN. graphiql 3.x ships a prebuilt bundle that runs on React 18's UMD
 * builds; newer majors would have to be bundled.
 */
const PACKAGE_FILES: Record<string, { module: string; type: string }> = {
  'react.js': { module: 'react/umd/react.production.min.js', type: 'text/javascript' },
  'react-dom.js': { module: 'react-dom/umd/react-dom.production.min.js', type: 'text/javascript' },
  'graphiql.js': { module: 'graphiql/graphiql.min.js', type: 'text/javascript' },
  'graphiql.css': { module: 'graphiql/graphiql.min.css', type: 'text/css' },
};

export interface Asset {
  body: Buffer;
  type: string;
}

export function createGraphiqlAssets() {
  const loaded = new Map<string, Promise<Asset>>();
  return {
    /** Reads a file on first use and keeps it; undefined for names outside the fixed list. */
    get(name: string): Promise<Asset> | undefined {
      if (name === 'init.js') return Promise.resolve({ body: Buffer.from(GRAPHIQL_INIT_SCRIPT), type: 'text/javascript' });
      const file = PACKAGE_FILES[name];
      if (!file) return undefined;
      let asset = loaded.get(name);
      if (!asset) {
        asset = readFile(require.resolve(file.module)).then((body) => ({ body, type: file.type }));
        loaded.set(name, asset);
      }
      return asset;
    },
  };
}
