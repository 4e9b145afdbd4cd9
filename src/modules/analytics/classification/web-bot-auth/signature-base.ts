// The RFC 9421 signature base (section 2.5): one line per covered component, then the
// `@signature-params` line. The verifier rebuilds it from the request record exactly as the
// signer built it from the request it sent; any difference makes the signature fail.

import {
  type Dictionary,
  type InnerList,
  type Item,
  parseDictionary,
  StructuredFieldError,
  serializeItem,
  serializeMember,
} from './structured-fields.ts';

/** The parts of a request that derived components are taken from. */
export interface SignedRequest {
  method: string;
  /** host[:port], lower case, default port omitted; null when the record does not say. */
  authority: string | null;
  scheme: string | null;
  /** The path as sent, still percent-encoded, without query. */
  path: string;
  /** The query without its '?', or null when there was none. */
  query: string | null;
  /** Header fields, names in lower case. */
  headers: ReadonlyMap<string, string>;
}

export class ComponentError extends Error {
  readonly kind: 'missing' | 'unsupported';
  constructor(kind: 'missing' | 'unsupported', message: string) {
    super(message);
    this.kind = kind;
    this.name = 'ComponentError';
  }
}

function need(value: string | null, component: string): string {
  if (value === null) throw new ComponentError('missing', `the record does not carry ${component}`);
  return value;
}

function headerComponent(name: string, item: Item, request: SignedRequest): string {
  const raw = request.headers.get(name);
  if (raw === undefined) throw new ComponentError('missing', `header ${name} is covered but absent`);
  const key = item.params.get('key');
  for (const param of item.params.keys()) {
    if (param !== 'key')
      throw new ComponentError('unsupported', `component parameter ;${param} is not supported`);
  }
  if (key === undefined) return raw.trim();
  if (typeof key !== 'string') throw new ComponentError('unsupported', 'the key parameter must be a string');
  let dictionary: Dictionary;
  try {
    dictionary = parseDictionary(raw);
  } catch (error) {
    if (error instanceof StructuredFieldError) {
      throw new ComponentError('missing', `header ${name} is not a structured dictionary`);
    }
    throw error;
  }
  const member = dictionary.get(key);
  if (member === undefined) throw new ComponentError('missing', `header ${name} has no member "${key}"`);
  return serializeMember(member);
}

export function componentValue(item: Item, request: SignedRequest): string {
  if (typeof item.value !== 'string')
    throw new ComponentError('unsupported', 'component identifiers must be strings');
  const name = item.value;
  if (!name.startsWith('@')) return headerComponent(name, item, request);
  if (item.params.size > 0)
    throw new ComponentError('unsupported', `parameters on ${name} are not supported`);
  switch (name) {
    case '@method':
      return request.method.toUpperCase();
    case '@authority':
      return need(request.authority, '@authority');
    case '@scheme':
      return need(request.scheme, '@scheme');
    case '@target-uri':
      return `${need(request.scheme, '@scheme')}://${need(request.authority, '@authority')}${request.path || '/'}${request.query === null ? '' : `?${request.query}`}`;
    case '@request-target':
      return `${request.path || '/'}${request.query === null ? '' : `?${request.query}`}`;
    case '@path':
      return request.path || '/';
    case '@query':
      return `?${request.query ?? ''}`;
    default:
      throw new ComponentError('unsupported', `derived component ${name} is not supported`);
  }
}

/** Builds the signature base for one Signature-Input member. */
export function buildSignatureBase(signatureParams: InnerList, request: SignedRequest): string {
  const lines: string[] = [];
  const seen = new Set<string>();
  for (const item of signatureParams.items) {
    const id = serializeItem(item);
    if (seen.has(id)) throw new ComponentError('unsupported', `component ${id} is covered twice`);
    seen.add(id);
    const value = componentValue(item, request);
    if (/[\r\n]/.test(value))
      throw new ComponentError('unsupported', `component ${id} contains a line break`);
    lines.push(`${id}: ${value}`);
  }
  lines.push(`"@signature-params": ${serializeMember(signatureParams)}`);
  return lines.join('\n');
}
