// The text/event-stream wire format (WHATWG HTML, "Server-sent events"): fields are lines
// "name: value", an event ends with an empty line, lines starting with ":" are comments.
import type { JobEventView } from '../../../contract/index.ts';

/** One stored event: its id (for Last-Event-ID), its type as the event name, and JSON data. */
export function eventFrame(event: JobEventView): string {
  // JSON.stringify escapes CR and LF inside strings, so the data is one line; the type comes from
  // our own code, but a line break in it would still split the frame, so it is flattened.
  const name = event.type.replace(/[\r\n]+/g, ' ');
  return `id: ${event.id}\nevent: ${name}\ndata: ${JSON.stringify(event)}\n\n`;
}

/** A comment: ignored by clients, keeps proxies and load balancers from closing an idle stream. */
export function commentFrame(text: string): string {
  return `: ${text.replace(/[\r\n]+/g, ' ')}\n\n`;
}

/** How long a client waits before reconnecting after the connection drops. */
export function retryFrame(ms: number): string {
  return `retry: ${Math.max(0, Math.floor(ms))}\n\n`;
}
