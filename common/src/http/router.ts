import type { IncomingMessage, ServerResponse } from 'node:http';

export interface RouteRequest {
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  params: Record<string, string>;
}

export type RouteHandler<R extends RouteRequest = RouteRequest> = (request: R) => Promise<void> | void;

interface Route<R extends RouteRequest> {
  method: string;
  segments: string[];
  handler: RouteHandler<R>;
}

/**
 * A deliberately small router: exact segments and `:name` parameters, nothing else. Both the
 * gateway and the sandbox have a handful of fixed routes; a framework would add more surface
 * (and more defaults to audit) than it removes.
 */
export class Router<R extends RouteRequest = RouteRequest> {
  private readonly routes: Route<R>[] = [];

  on(method: string, pattern: string, handler: RouteHandler<R>): this {
    this.routes.push({ method, segments: splitPath(pattern), handler });
    return this;
  }

  /** Finds the handler for a request; `methodNotAllowed` when the path exists under another method. */
  match(
    method: string,
    pathname: string,
  ): { handler: RouteHandler<R>; params: Record<string, string> } | 'methodNotAllowed' | undefined {
    const segments = splitPath(pathname);
    let pathMatched = false;
    for (const route of this.routes) {
      const params = matchSegments(route.segments, segments);
      if (!params) continue;
      if (route.method === method || (route.method === 'GET' && method === 'HEAD'))
        return { handler: route.handler, params };
      pathMatched = true;
    }
    return pathMatched ? 'methodNotAllowed' : undefined;
  }
}

function splitPath(path: string): string[] {
  return path.split('/').filter((segment) => segment.length > 0);
}

function matchSegments(pattern: string[], actual: string[]): Record<string, string> | undefined {
  if (pattern.length !== actual.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i += 1) {
    const expected = pattern[i]!;
    const value = actual[i]!;
    if (expected.startsWith(':')) {
      let decoded: string;
      try {
        decoded = decodeURIComponent(value);
      } catch {
        return undefined;
      }
      params[expected.slice(1)] = decoded;
    } else if (expected !== value) {
      return undefined;
    }
  }
  return params;
}
