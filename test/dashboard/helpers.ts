// The HTTP application with the dashboard, and a small cookie-keeping client over inject() that
// sends forms the way a browser does (urlencoded, with the page's CSRF token).
import { randomBytes } from 'node:crypto';
import type { Database } from '../../src/db/database.ts';
import { buildApp } from '../../src/http/app.ts';
import type { App } from '../../src/http/context.ts';
import { createLogger } from '../../src/util/logger.ts';

export const PUBLIC_URL = 'http://127.0.0.1:3000';

export async function createDashboardApp(
  db: Database,
  options: {
    secretKey?: Buffer;
    onJobQueued?: (jobId: string) => void;
    publicUrl?: string;
    defaultModel?: string | null;
  } = {},
): Promise<{ app: App; secretKey: Buffer }> {
  const secretKey = options.secretKey ?? randomBytes(32);
  const app = await buildApp({
    db,
    logger: createLogger('silent'),
    config: {
      jobRateLimitPerHour: 100,
      defaultModel: options.defaultModel === undefined ? 'openai:gpt-test' : options.defaultModel,
      publicUrl: options.publicUrl ?? PUBLIC_URL,
    },
    dashboard: { secretKey, liveKeepAliveMs: 200 },
    ...(options.onJobQueued ? { onJobQueued: options.onJobQueued } : {}),
  });
  return { app, secretKey };
}

export interface PageAnswer {
  status: number;
  body: string;
  headers: Record<string, string | string[] | number | undefined>;
  location: string | undefined;
}

export class InjectBrowser {
  readonly cookies = new Map<string, string>();
  csrf = '';
  private readonly app: App;

  constructor(app: App) {
    this.app = app;
  }

  private cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  private remember(headers: PageAnswer['headers'], body: string): void {
    const set = headers['set-cookie'];
    for (const line of Array.isArray(set) ? set : set ? [String(set)] : []) {
      const [pair] = line.split(';');
      const [name, ...rest] = pair!.split('=');
      const value = rest.join('=');
      if (value === '' || /Max-Age=0|Expires=Thu, 01 Jan 1970/i.test(line)) this.cookies.delete(name!.trim());
      else this.cookies.set(name!.trim(), value);
    }
    const token = /<meta name="csrf-token" content="([^"]*)">/.exec(body);
    if (token) this.csrf = token[1]!;
  }

  async get(url: string, headers: Record<string, string> = {}): Promise<PageAnswer> {
    const res = await this.app.inject({
      method: 'GET',
      url,
      headers: { cookie: this.cookieHeader(), ...headers },
    });
    this.remember(res.headers, res.body);
    return {
      status: res.statusCode,
      body: res.body,
      headers: res.headers,
      location: res.headers.location as string | undefined,
    };
  }

  /** Posts a form with the CSRF token of the last page (unless _csrf is given, or null to leave it out). */
  async post(
    url: string,
    fields: Record<string, string | string[] | null>,
    headers: Record<string, string> = {},
  ): Promise<PageAnswer> {
    const params = new URLSearchParams();
    const withToken = '_csrf' in fields ? fields : { _csrf: this.csrf, ...fields };
    for (const [k, v] of Object.entries(withToken)) {
      if (v === null) continue;
      for (const one of Array.isArray(v) ? v : [v]) params.append(k, one);
    }
    const res = await this.app.inject({
      method: 'POST',
      url,
      headers: {
        cookie: this.cookieHeader(),
        'content-type': 'application/x-www-form-urlencoded',
        ...headers,
      },
      payload: params.toString(),
    });
    this.remember(res.headers, res.body);
    return {
      status: res.statusCode,
      body: res.body,
      headers: res.headers,
      location: res.headers.location as string | undefined,
    };
  }
}
