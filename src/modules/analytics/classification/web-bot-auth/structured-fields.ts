// Structured Field Values for HTTP (RFC 9651, formerly RFC 8941): the parts Web Bot Auth needs.
// Signature-Input is a Dictionary of Inner Lists with Parameters, Signature a Dictionary of Byte
// Sequences, Signature-Agent a Dictionary of Strings (or, in older deployments, one String).
// The serializer writes the canonical form RFC 9421 puts into the signature base.
// Parsing is strict: any syntax error throws StructuredFieldError, so a malformed header is
// reported as such instead of being half-read.

export class ByteSequence {
  readonly bytes: Buffer;
  constructor(bytes: Buffer) {
    this.bytes = bytes;
  }
}
export class Token {
  readonly value: string;
  constructor(value: string) {
    this.value = value;
  }
}

export type BareItem = number | string | boolean | Token | ByteSequence;
export type Parameters = Map<string, BareItem>;
export interface Item {
  value: BareItem;
  params: Parameters;
}
export interface InnerList {
  items: Item[];
  params: Parameters;
}
export type DictionaryMember = Item | InnerList;
export type Dictionary = Map<string, DictionaryMember>;

export class StructuredFieldError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StructuredFieldError';
  }
}

export function isInnerList(member: DictionaryMember): member is InnerList {
  return 'items' in member;
}

class Parser {
  pos = 0;
  readonly input: string;
  constructor(input: string) {
    this.input = input;
  }

  fail(what: string): never {
    throw new StructuredFieldError(`${what} at character ${this.pos}`);
  }
  peek(): string {
    return this.input[this.pos] ?? '';
  }
  eof(): boolean {
    return this.pos >= this.input.length;
  }
  skipSpaces(): void {
    while (this.peek() === ' ') this.pos++;
  }
  skipOws(): void {
    while (this.peek() === ' ' || this.peek() === '\t') this.pos++;
  }

  key(): string {
    const start = this.pos;
    if (!/[a-z*]/.test(this.peek())) this.fail('expected a key');
    this.pos++;
    while (/[a-z0-9_\-.*]/.test(this.peek()) && !this.eof()) this.pos++;
    return this.input.slice(start, this.pos);
  }

  bareItem(): BareItem {
    const c = this.peek();
    if (c === '-' || /[0-9]/.test(c)) return this.number();
    if (c === '"') return this.string();
    if (c === ':') return this.byteSequence();
    if (c === '?') return this.boolean();
    if (/[A-Za-z*]/.test(c)) return this.token();
    return this.fail('expected an item');
  }

  number(): number {
    const match = /^-?[0-9]{1,15}(\.[0-9]{1,3})?/.exec(this.input.slice(this.pos));
    if (!match) this.fail('expected a number');
    const text = match[0];
    const next = this.input[this.pos + text.length];
    if (next !== undefined && /[0-9.]/.test(next)) this.fail('number too long');
    if (!match[1] && text.replace('-', '').length > 15) this.fail('integer too long');
    this.pos += text.length;
    return Number(text);
  }

  string(): string {
    this.pos++; // opening quote
    let out = '';
    while (!this.eof()) {
      const c = this.input[this.pos++]!;
      if (c === '\\') {
        const next = this.input[this.pos++];
        if (next !== '"' && next !== '\\') this.fail('bad escape in string');
        out += next;
      } else if (c === '"') {
        return out;
      } else {
        const code = c.charCodeAt(0);
        if (code < 0x20 || code > 0x7e) this.fail('invalid character in string');
        out += c;
      }
    }
    return this.fail('unterminated string');
  }

  token(): Token {
    const start = this.pos;
    this.pos++;
    while (/[!#$%&'*+\-.^_`|~0-9A-Za-z:/]/.test(this.peek()) && !this.eof()) this.pos++;
    return new Token(this.input.slice(start, this.pos));
  }

  byteSequence(): ByteSequence {
    this.pos++;
    const end = this.input.indexOf(':', this.pos);
    if (end === -1) this.fail('unterminated byte sequence');
    const text = this.input.slice(this.pos, end);
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text)) this.fail('invalid base64 in byte sequence');
    this.pos = end + 1;
    return new ByteSequence(Buffer.from(text, 'base64'));
  }

  boolean(): boolean {
    this.pos++;
    const c = this.input[this.pos++];
    if (c === '1') return true;
    if (c === '0') return false;
    return this.fail('invalid boolean');
  }

  parameters(): Parameters {
    const params: Parameters = new Map();
    while (this.peek() === ';') {
      this.pos++;
      this.skipSpaces();
      const key = this.key();
      let value: BareItem = true;
      if (this.peek() === '=') {
        this.pos++;
        value = this.bareItem();
      }
      params.set(key, value);
    }
    return params;
  }

  item(): Item {
    const value = this.bareItem();
    return { value, params: this.parameters() };
  }

  innerList(): InnerList {
    this.pos++; // (
    const items: Item[] = [];
    while (!this.eof()) {
      this.skipSpaces();
      if (this.peek() === ')') {
        this.pos++;
        return { items, params: this.parameters() };
      }
      items.push(this.item());
      const c = this.peek();
      if (c !== ' ' && c !== ')') this.fail('expected a space or ) in inner list');
    }
    return this.fail('unterminated inner list');
  }

  member(): DictionaryMember {
    return this.peek() === '(' ? this.innerList() : this.item();
  }

  dictionary(): Dictionary {
    const dict: Dictionary = new Map();
    this.skipSpaces();
    while (!this.eof()) {
      const key = this.key();
      if (this.peek() === '=') {
        this.pos++;
        dict.set(key, this.member());
      } else {
        dict.set(key, { value: true, params: this.parameters() });
      }
      this.skipOws();
      if (this.eof()) return dict;
      if (this.peek() !== ',') this.fail('expected , between dictionary members');
      this.pos++;
      this.skipOws();
      if (this.eof()) this.fail('trailing comma');
    }
    return dict;
  }
}

export function parseDictionary(input: string): Dictionary {
  return new Parser(input.trim()).dictionary();
}

export function parseItem(input: string): Item {
  const parser = new Parser(input.trim());
  const item = parser.item();
  if (!parser.eof()) parser.fail('unexpected characters after item');
  return item;
}

export function serializeBareItem(value: BareItem): string {
  if (typeof value === 'boolean') return value ? '?1' : '?0';
  if (typeof value === 'number') {
    if (Number.isInteger(value)) return String(value);
    return String(Math.round(value * 1000) / 1000);
  }
  if (typeof value === 'string') return `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
  if (value instanceof Token) return value.value;
  return `:${value.bytes.toString('base64')}:`;
}

export function serializeParameters(params: Parameters): string {
  let out = '';
  for (const [key, value] of params)
    out += value === true ? `;${key}` : `;${key}=${serializeBareItem(value)}`;
  return out;
}

export function serializeItem(item: Item): string {
  return serializeBareItem(item.value) + serializeParameters(item.params);
}

export function serializeMember(member: DictionaryMember): string {
  if (!isInnerList(member)) return serializeItem(member);
  return `(${member.items.map(serializeItem).join(' ')})${serializeParameters(member.params)}`;
}
