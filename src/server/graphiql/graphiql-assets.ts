import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { GRAPHIQL_INIT_SCRIPT } from './graphiql-init.js';

/**
 * The files GraphiQL needs, served from the gateway's own dependencies so the page works offline
 * and loads nothing from a CDN. graphiql 3.x ships a prebuilt bundle that runs on React 18's UMD
 * builds; newer majors would have to be bundled.
 */
const PACKAGE_FILES: Record<string, { packageName: string; file: string; type: string }> = {
  'react.js': { packageName: 'react', file: 'umd/react.production.min.js', type: 'text/javascript' },
  'react-dom.js': { packageName: 'react-dom', file: 'umd/react-dom.production.min.js', type: 'text/javascript' },
  'graphiql.js': { packageName: 'graphiql', file: 'graphiql.min.js', type: 'text/javascript' },
  'graphiql.css': { packageName: 'graphiql', file: 'graphiql.min.css', type: 'text/css' },
};

export interface Asset {
  body: Buffer;
  type: string;
}

export function createGraphiqlAssets() {
  // createRequire rather than the global: the test runner executes this file without one.
  // Packages are located by their package.json because their export maps hide the UMD files.
  const resolveModule = createRequire(__filename).resolve;
  const packageFile = (packageName: string, file: string) =>
    join(dirname(resolveModule(`${packageName}/package.json`)), file);
  const loaded = new Map<string, Promise<Asset>>();
  return {
    /** Reads a file on first use and keeps it; undefined for names outside the fixed list. */
    get(name: string): Promise<Asset> | undefined {
      if (name === 'init.js')
        return Promise.resolve({ body: Buffer.from(GRAPHIQL_INIT_SCRIPT), type: 'text/javascript' });
      const file = PACKAGE_FILES[name];
      if (!file) return undefined;
      let asset = loaded.get(name);
      if (!asset) {
        asset = readFile(packageFile(file.packageName, file.file)).then((body) => ({ body, type: file.type }));
        loaded.set(name, asset);
      }
      return asset;
    },
  };
}
