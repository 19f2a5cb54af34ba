export interface BrowserResponse {
  status: number;
  headers: Headers;
  text: string;
  /** The response's Location resolved against its URL, when it redirects. */
  location?: string;
}

/** Every response a browser received, as `onResponse` is told of it (a secret-leak audit, say). */
export interface ObservedResponse {
  url: string;
  status: number;
  headers: Record<string, string | string[]>;
  body: string;
}

export interface BrowserOptions {
  onResponse?: (response: ObservedResponse) => void;
}

/**
 * A minimal browser for tests that walk the sandbox's pages (and an app's around them): a cookie
 * jar per host, no automatic redirects (a test looks at each hop).
 */
export class Browser {
  private readonly jar = new Map<string, Map<string, string>>();
  /** Where requests for a host really go (a load balancer in front of several instances). */
  private route: ((url: URL) => URL) | undefined;

  constructor(private readonly options: BrowserOptions = {}) {}

  /** Sends later requests through `route` (cookies stay keyed by the host the browser sees). */
  routeThrough(route: ((url: URL) => URL) | undefined): this {
    this.route = route;
    return this;
  }

  async request(url: string, init: RequestInit = {}): Promise<BrowserResponse> {
    const target = new URL(url);
    const headers = new Headers(init.headers);
    const cookies = this.jar.get(target.host);
    if (cookies && cookies.size > 0)
      headers.set('cookie', [...cookies].map(([name, value]) => `${name}=${value}`).join('; '));
    const response = await fetch(this.route ? this.route(target) : target, { ...init, headers, redirect: 'manual' });
    this.storeCookies(target.host, response.headers.getSetCookie());
    const text = await response.text();
    this.options.onResponse?.({ url: target.href, status: response.status, headers: rawHeaders(response), body: text });
    const location = response.headers.get('location');
    return {
      status: response.status,
      headers: response.headers,
      text,
      location: location ? new URL(location, target).href : undefined,
    };
  }

  cookie(host: string, name: string): string | undefined {
    return this.jar.get(host)?.get(name);
  }

  setCookie(host: string, name: string, value: string): void {
    this.cookiesFor(host).set(name, value);
  }

  private cookiesFor(host: string): Map<string, string> {
    let cookies = this.jar.get(host);
    if (!cookies) this.jar.set(host, (cookies = new Map()));
    return cookies;
  }

  private storeCookies(host: string, setCookies: string[]): void {
    for (const header of setCookies) {
      const [pair, ...attributes] = header.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      const expired = attributes.some((attribute) => /^\s*max-age=0\s*$/i.test(attribute));
      if (expired || value === '') this.cookiesFor(host).delete(name);
      else this.cookiesFor(host).set(name, value);
    }
  }
}

/** Every header as received, `set-cookie` as its list. */
function rawHeaders(response: Response): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => (headers[name] = value));
  headers['set-cookie'] = response.headers.getSetCookie();
  return headers;
}
