// One webhook HTTP request: POST with a deadline, the address guard, no redirects followed, and
// only the start of the answer kept. Node's http/https clients rather than fetch, because they
// take a lookup function: the guard then checks the address actually connected to.
import http from 'node:http';
import https from 'node:https';
import { scrubSecrets } from '../../util/logger.ts';
import { AddressRefusedError, checkLiteralHost, guardedLookup } from './address-guard.ts';

export interface SendOptions {
  /** The whole exchange (connect, send, first bytes of the answer) must fit in this. */
  timeoutMs: number;
  /** Whether loopback and private addresses may be reached. */
  allowPrivateAddresses: boolean;
  /** How much of the answer's body to keep. */
  snippetChars?: number;
}

export interface SendResult {
  /** A 2xx answer. */
  ok: boolean;
  status: number | null;
  /** Why the attempt failed, for the delivery record and the log; null when ok. */
  error: string | null;
  snippet: string | null;
}

const MAX_READ_BYTES = 4096;

export function postWebhook(
  target: string,
  headers: Record<string, string>,
  body: string,
  options: SendOptions,
): Promise<SendResult> {
  const snippetChars = options.snippetChars ?? 200;
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return Promise.resolve(failure(null, 'the webhook URL is not a valid URL'));
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return Promise.resolve(failure(null, `the webhook URL must be http or https, not ${url.protocol}`));
  }
  if (!options.allowPrivateAddresses) {
    try {
      checkLiteralHost(url);
    } catch (error) {
      return Promise.resolve(failure(null, (error as Error).message));
    }
  }
  const client = url.protocol === 'https:' ? https : http;
  return new Promise<SendResult>((resolve) => {
    let settled = false;
    const settle = (result: SendResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      request.destroy();
      resolve(result);
    };
    const request = client.request(
      url,
      {
        method: 'POST',
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        agent: false, // a fresh connection per attempt: nothing pooled across receivers
        ...(options.allowPrivateAddresses ? {} : { lookup: guardedLookup }),
      },
      (response) => {
        const status = response.statusCode ?? 0;
        const chunks: Buffer[] = [];
        let read = 0;
        const finish = () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const snippet = cleanSnippet(text, snippetChars);
          if (status >= 200 && status < 300) settle({ ok: true, status, error: null, snippet });
          else if (status >= 300 && status < 400) {
            settle({
              ok: false,
              status,
              error: `the receiver answered ${status} (a redirect${redirectTarget(response.headers.location, url)}); webhooks do not follow redirects: set webhookUrl to the final URL`,
              snippet,
            });
          } else settle({ ok: false, status, error: `the receiver answered ${status}`, snippet });
        };
        response.on('data', (chunk: Buffer) => {
          if (read >= MAX_READ_BYTES) return;
          chunks.push(chunk);
          read += chunk.length;
          if (read >= MAX_READ_BYTES) finish(); // enough to show; the rest is not needed
        });
        response.on('end', finish);
        response.on('error', finish);
      },
    );
    const deadline = setTimeout(() => {
      settle(failure(null, `no answer within ${Math.round(options.timeoutMs / 100) / 10} s`));
    }, options.timeoutMs);
    request.on('error', (error: NodeJS.ErrnoException) => {
      settle(failure(null, describeError(error)));
    });
    request.end(body);
  });
}

function failure(status: number | null, error: string): SendResult {
  return { ok: false, status, error: scrubSecrets(error), snippet: null };
}

function describeError(error: NodeJS.ErrnoException): string {
  if (error instanceof AddressRefusedError) return error.message;
  // Node's messages name the code and the address (connect ECONNREFUSED 10.0.0.1:443): useful,
  // and never the URL's path or query, which may carry a receiver's token.
  return `the request failed: ${error.message}`;
}

function redirectTarget(location: string | undefined, from: URL): string {
  if (!location) return '';
  try {
    const to = new URL(location, from);
    return to.host === from.host ? ' within the same host' : ` to ${to.host}`;
  } catch {
    return '';
  }
}

/** The start of the answer, on one line, without secrets, for the delivery record. */
function cleanSnippet(text: string, max: number): string | null {
  const flat = text.replace(/\p{Cc}+/gu, ' ').trim(); // control characters, line breaks
  if (flat === '') return null;
  const cut = flat.length > max ? `${flat.slice(0, max)}…` : flat;
  return scrubSecrets(cut);
}
