// Stand-in for a Web Bot Auth agent: its key directory served over real HTTP, and a signer that
// signs requests the way such an agent does. Built from the IETF drafts
// "HTTP Message Signatures for automated traffic" (draft-ietf-webbotauth-httpsig-protocol,
// formerly draft-meunier-web-bot-auth-architecture) and "HTTP Message Signatures Directory"
// (draft-meunier-webbotauth-httpsig-directory), on RFC 9421:
// - the directory is a JWK Set of Ed25519 keys at /.well-known/http-message-signatures-directory,
//   media type application/http-message-signatures-directory+json, with Cache-Control;
// - a signed request carries Signature-Agent (a Dictionary whose member names the agent's
//   origin), Signature-Input covering "@authority" and that member, with created, expires,
//   keyid (the key's JWK SHA-256 thumbprint) and tag="web-bot-auth", and Signature.
// The signature base is written out here by hand, independently of the verifier's builder, so a
// shared mistake cannot make both sides agree.

import { createHash, generateKeyPairSync, type KeyObject, sign } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface BotKey {
  privateKey: KeyObject;
  publicKey: KeyObject;
  /** The public JWK as published in the directory. */
  jwk: { kty: 'OKP'; crv: 'Ed25519'; x: string; kid: string; use: 'sig' };
  /** RFC 7638 thumbprint: the Web Bot Auth keyid. */
  keyid: string;
}

export function generateBotKey(): BotKey {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const x = publicKey.export({ format: 'jwk' }).x as string;
  const keyid = createHash('sha256').update(`{"crv":"Ed25519","kty":"OKP","x":"${x}"}`).digest('base64url');
  return { privateKey, publicKey, keyid, jwk: { kty: 'OKP', crv: 'Ed25519', x, kid: keyid, use: 'sig' } };
}

export interface DirectoryBehaviour {
  /** HTTP status to answer (200 by default). */
  status?: number;
  /** Delay before answering, to play a slow directory. */
  delayMs?: number;
  cacheControl?: string;
  /** A body to send instead of the JWK Set (e.g. an oversized one). */
  body?: string;
}

export interface BotKeyDirectory {
  /** The agent's origin, e.g. http://127.0.0.1:40123 — what Signature-Agent names. */
  origin: string;
  keys: BotKey[];
  behaviour: DirectoryBehaviour;
  /** Directory requests received so far. */
  requests: number;
  close(): Promise<void>;
}

export async function startBotKeyDirectory(
  keys: BotKey[],
  behaviour: DirectoryBehaviour = {},
): Promise<BotKeyDirectory> {
  const directory = { keys, behaviour, requests: 0 } as BotKeyDirectory;
  const server: Server = createServer((request, response) => {
    if (request.url !== '/.well-known/http-message-signatures-directory') {
      response.writeHead(404).end();
      return;
    }
    directory.requests++;
    const answer = () => {
      const current = directory.behaviour;
      const body = current.body ?? JSON.stringify({ keys: directory.keys.map((key) => key.jwk) });
      response.writeHead(current.status ?? 200, {
        'content-type': 'application/http-message-signatures-directory+json',
        'cache-control': current.cacheControl ?? 'max-age=86400',
      });
      response.end(body);
    };
    const delay = directory.behaviour.delayMs ?? 0;
    if (delay > 0) setTimeout(answer, delay);
    else answer();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  directory.origin = `http://127.0.0.1:${port}`;
  directory.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return directory;
}

export interface SignOptions {
  key: BotKey;
  /** The keyid to announce; defaults to the key's own thumbprint. */
  keyid?: string;
  /** Host the request is sent to, as it will appear in @authority. */
  authority: string;
  /** The agent's origin, sent in Signature-Agent. */
  agentOrigin: string;
  created: number;
  expires: number;
  label?: string;
  /** Also cover "@method" and "@path" (the drafts recommend it). */
  method?: string;
  path?: string;
}

function quote(text: string): string {
  return `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

/** The three Web Bot Auth request headers for a request to `authority`. */
export function signRequest(options: SignOptions): Record<string, string> {
  const label = options.label ?? 'sig1';
  const member = 'agent1';
  const agentValue = quote(options.agentOrigin);
  const components = ['"@authority"', `"signature-agent";key="${member}"`];
  const lines = [`"@authority": ${options.authority}`, `"signature-agent";key="${member}": ${agentValue}`];
  if (options.method !== undefined && options.path !== undefined) {
    components.unshift('"@method"', '"@path"');
    lines.unshift(`"@method": ${options.method}`, `"@path": ${options.path}`);
  }
  const params = `(${components.join(' ')});created=${options.created};expires=${options.expires};keyid=${quote(options.keyid ?? options.key.keyid)};tag="web-bot-auth"`;
  lines.push(`"@signature-params": ${params}`);
  const signature = sign(null, Buffer.from(lines.join('\n'), 'utf8'), options.key.privateKey).toString(
    'base64',
  );
  return {
    'Signature-Agent': `${member}=${agentValue}`,
    'Signature-Input': `${label}=${params}`,
    Signature: `${label}=:${signature}:`,
  };
}
