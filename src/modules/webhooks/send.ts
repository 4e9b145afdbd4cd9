// One webhook HTTP request through the outbound-HTTP module (src/net/outbound-http): POST with a
// deadline, the address policy checked at connect time, no redirects followed, and only the start
// of the answer kept.
import { type OutboundResponse, outboundRequest } from '../../net/outbound-http/index.ts';
import { scrubSecrets } from '../../util/logger.ts';

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

export async function postWebhook(
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
    return failure(null, 'the webhook URL is not a valid URL');
  }
  let response: OutboundResponse;
  try {
    response = await outboundRequest(url, {
      method: 'POST',
      headers,
      body,
      timeoutMs: options.timeoutMs,
      maxBytes: MAX_READ_BYTES, // enough to show; the rest is not needed
      policy: {
        purpose: 'webhooks',
        requireHttps: false,
        allowPrivateAddresses: options.allowPrivateAddresses,
        allowPrivateSetting: 'DOCWRIGHT_WEBHOOKS_ALLOW_PRIVATE',
      },
    });
  } catch (error) {
    return failure(null, (error as Error).message);
  }
  const { status } = response;
  const snippet = cleanSnippet(response.body.toString('utf8'), snippetChars);
  if (status >= 200 && status < 300) return { ok: true, status, error: null, snippet };
  if (status >= 300 && status < 400) {
    return {
      ok: false,
      status,
      error: `the receiver answered ${status} (a redirect${redirectTarget(response.headers.location, url)}); webhooks do not follow redirects: set webhookUrl to the final URL`,
      snippet,
    };
  }
  return { ok: false, status, error: `the receiver answered ${status}`, snippet };
}

function failure(status: number | null, error: string): SendResult {
  return { ok: false, status, error: scrubSecrets(error), snippet: null };
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
