// Reads the text of a list to sync: a local file, or an http(s) URL fetched with a timeout and a
// size cap (a list is tens of kilobytes; a server that streams forever must not hold a sync or
// fill memory). Redirects are not followed. The scheduled sync fetches the configured URL the
// same way; routing it through the project's outbound HTTP guard is left to that module.

import { readFile } from 'node:fs/promises';
import { AgentSyncRefused } from './agent-sync.ts';

/** ai.robots.txt's robots.json on GitHub: the default source of `docwright agents sync`. */
export const AI_ROBOTS_TXT_URL =
  'https://raw.githubusercontent.com/ai-robots-txt/ai.robots.txt/main/robots.json';

export const SYNC_FETCH_TIMEOUT_MS = 15_000;
// ai.robots.txt's robots.json is about 75 KB; the cap also keeps the text, sent as an admin
// command's input, within the control socket's 1 MiB request limit.
export const SYNC_MAX_BYTES = 512 * 1024;

export function isUrl(from: string): boolean {
  return /^https?:\/\//i.test(from);
}

async function readCapped(response: Response, source: string, maxBytes: number): Promise<string> {
  const reader = response.body?.getReader();
  if (reader === undefined) return '';
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => {});
      throw new AgentSyncRefused(`The list at ${source} is larger than ${maxBytes} bytes; nothing changed.`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
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
  let response: Response;
  try {
    response = await fetch(from, {
      redirect: 'error',
      signal: AbortSignal.timeout(limits.timeoutMs ?? SYNC_FETCH_TIMEOUT_MS),
      headers: { accept: 'application/json' },
    });
  } catch (error) {
    throw new AgentSyncRefused(`Cannot fetch ${from} (${(error as Error).message}); nothing changed.`);
  }
  if (!response.ok) {
    await response.body?.cancel().catch(() => {});
    throw new AgentSyncRefused(`${from} answered HTTP ${response.status}; nothing changed.`);
  }
  try {
    return await readCapped(response, from, maxBytes);
  } catch (error) {
    if (error instanceof AgentSyncRefused) throw error;
    throw new AgentSyncRefused(`Cannot read ${from} (${(error as Error).message}); nothing changed.`);
  }
}
