// A parser for the text/event-stream format as the WHATWG HTML standard defines it ("Server-sent
// events", §9.2.6 interpreting an event stream): lines end with CRLF, LF or CR; a line starting
// with ":" is a comment; "field: value" lines fill the event's buffers; an empty line dispatches
// it; an event without data is not dispatched; an unfinished event at the end is discarded.

export interface SseMessage {
  /** The event type ("message" when the stream named none). */
  event: string;
  data: string;
  /** The last event id seen so far in the stream (what Last-Event-ID should carry), or null. */
  lastEventId: string | null;
}

export class SseParser {
  private buffer = '';
  private sawCr = false;
  private atStart = true;
  private data: string[] = [];
  private eventType = '';
  lastEventId: string | null = null;
  /** The reconnection time the stream asked for (retry field), in ms. */
  retryMs: number | null = null;

  /** Feeds decoded text; returns the events it completed. */
  push(text: string): SseMessage[] {
    if (text === '') return [];
    let chunk = text;
    if (this.atStart && chunk.length > 0) {
      if (chunk.charCodeAt(0) === 0xfeff) chunk = chunk.slice(1);
      this.atStart = false;
    }
    // A CR at the end of the previous chunk already ended its line: skip the LF of its CRLF.
    if (this.sawCr && chunk.startsWith('\n')) chunk = chunk.slice(1);
    this.sawCr = false;
    const out: SseMessage[] = [];
    this.buffer += chunk;
    let start = 0;
    for (let i = 0; i < this.buffer.length; i++) {
      const c = this.buffer.charCodeAt(i);
      if (c !== 0x0a && c !== 0x0d) continue;
      this.line(this.buffer.slice(start, i), out);
      if (c === 0x0d) {
        if (i + 1 === this.buffer.length) this.sawCr = true;
        else if (this.buffer.charCodeAt(i + 1) === 0x0a) i++;
      }
      start = i + 1;
    }
    this.buffer = this.buffer.slice(start);
    return out;
  }

  private line(line: string, out: SseMessage[]): void {
    if (line === '') {
      this.dispatch(out);
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    switch (field) {
      case 'event':
        this.eventType = value;
        break;
      case 'data':
        this.data.push(value);
        break;
      case 'id':
        if (!value.includes('\0')) this.lastEventId = value;
        break;
      case 'retry':
        if (/^\d+$/.test(value)) this.retryMs = Number(value);
        break;
      default:
        break; // unknown fields are ignored
    }
  }

  private dispatch(out: SseMessage[]): void {
    const hasData = this.data.length > 0;
    const message = {
      event: this.eventType === '' ? 'message' : this.eventType,
      data: this.data.join('\n'),
      lastEventId: this.lastEventId,
    };
    this.data = [];
    this.eventType = '';
    if (hasData) out.push(message);
  }
}

/** The events of a response body, as they arrive. Cancelling the iteration cancels the body. */
export async function* readEventStream(
  body: ReadableStream<Uint8Array>,
  parser: SseParser = new SseParser(),
): AsyncGenerator<SseMessage> {
  const reader = body.getReader();
  const decoder = new TextDecoder('utf-8');
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) {
        yield* parser.push(decoder.decode());
        return;
      }
      yield* parser.push(decoder.decode(value, { stream: true }));
    }
  } finally {
    // Ends the connection when the caller stops early; harmless after the stream has ended.
    await reader.cancel().catch(() => {});
  }
}
