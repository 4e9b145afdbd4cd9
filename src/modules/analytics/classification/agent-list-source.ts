// Reads the text of a list to sync: a local file, or an http(s) URL fetched through the one
// outbound HTTP path, with a timeout and a size cap (a list is tens of kilobytes; a server that
// streams forever must not hold a sync or fill memory) and no redirects followed. The scheduled
// sync fetches the configured URL the same way.

import { readFile } from 'node:fs/promises';
import {
  type OutboundPolicy,
  type OutboundResponse,
  outboundRequest,
} from '../../../net/outbound-http/index.ts';
import { AgentSyncRefused } from './agent-sync.ts';

/** ai.robots.txt's robots.json on GitHub: the default source of `docwright agents sync`. */
export const AI_ROBOTS_TXT_URL =
  'https://raw.githubusercontent.com/ai-robots-txt/ai.robots.txt/main/robots.json';

export const SYNC_FETCH_TIMEOUT_MS = 15_000;
// ai.robots.txt's robots.json is about 75 KB; the cap also keeps the text, sent as an admin
// command's input, within the control socket's 1 MiB request limit.
export const SYNC_MAX_BYTES = 512 * 1024;

// The URL is the operator's (DOCWRIGHT_AGENT_LIST_SYNC_URL or an admin's --from), not a user's or a
// visitor's, so any address it names may be reached, a mirror on the local network included.
const AGENT_LIST_POLICY: OutboundPolicy = {
  purpose: 'agent lists',
  requireHttps: false,
  allowPrivateAddresses: true,
};

export function isUrl(from: string): boolean {
  return /^https?:\/\//i.test(from);
}

export async function readAgentListSource(
  from: string,
  limits: { timeoutMs?: number; maxBytes?: number } = {},
): Promise<string> {
  const maxBytes = limits.maxBytes ?? SYNC_MAX_BYTES;
  if (!isUrl(from)) {
    try {
      return await readFile(from, 'utf8');
    } catch (error) {
      throw new AgentSyncRefused(`Cannot read ${from} (${(error as Error).message}); nothing changed.`);
    }
  }
  let response: OutboundResponse;
  try {
    response = await outboundRequest(from, {
      headers: { accept: 'application/json' },
      timeoutMs: limits.timeoutMs ?? SYNC_FETCH_TIMEOUT_MS,
      maxBytes,
      policy: AGENT_LIST_POLICY,
    });
  } catch (error) {
    throw new AgentSyncRefused(`Cannot fetch ${from} (${(error as Error).message}); nothing changed.`);
  }
  if (response.status < 200 || response.status > 299) {
    throw new AgentSyncRefused(`${from} answered HTTP ${response.status}; nothing changed.`);
  }
  if (response.truncated) {
    throw new AgentSyncRefused(`The list at ${from} is larger than ${maxBytes} bytes; nothing changed.`);
  }
  return response.body.toString('utf8');
}
