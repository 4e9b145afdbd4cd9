// Splits a byte stream into lines without ever holding more than one chunk and one line: any log
// size streams through in constant memory. A line longer than maxLineBytes is cut (it cannot be a
// request line anyway); its full length is still reported, so the ledger's hash tells it apart.

export interface Line {
  /** The line's bytes without its "\n" (cut at maxLineBytes when longer). */
  bytes: Buffer;
  /** The whole line's length in bytes, without "\n". */
  length: number;
  /** False only for a last line that ended without "\n". */
  terminated: boolean;
}

export const DEFAULT_MAX_LINE_BYTES = 256 * 1024;

/** Yields the lines of each chunk as one batch (cheaper than one await per line). */
export async function* readLineBatches(
  chunks: AsyncIterable<Buffer>,
  maxLineBytes = DEFAULT_MAX_LINE_BYTES,
): AsyncGenerator<Line[]> {
  // The start of a line that continues in the next chunk: its kept bytes and its full length.
  let pending: Buffer[] = [];
  let pendingKept = 0;
  let pendingLength = 0;

  const keep = (part: Buffer) => {
    pendingLength += part.length;
    const room = maxLineBytes - pendingKept;
    if (room <= 0) return;
    const kept = part.length > room ? part.subarray(0, room) : part;
    // Copy: the chunk's memory is reused by the stream once we move on.
    pending.push(Buffer.from(kept));
    pendingKept += kept.length;
  };
  const take = (terminated: boolean): Line => {
    const bytes = pending.length === 1 ? pending[0]! : Buffer.concat(pending, pendingKept);
    const line = { bytes, length: pendingLength, terminated };
    pending = [];
    pendingKept = 0;
    pendingLength = 0;
    return line;
  };

  for await (const chunk of chunks) {
    const lines: Line[] = [];
    let start = 0;
    for (;;) {
      const end = chunk.indexOf(0x0a, start);
      if (end === -1) break;
      if (pendingLength === 0) {
        const length = end - start;
        const bytes = chunk.subarray(start, length > maxLineBytes ? start + maxLineBytes : end);
        lines.push({ bytes: Buffer.from(bytes), length, terminated: true });
      } else {
        keep(chunk.subarray(start, end));
        lines.push(take(true));
      }
      start = end + 1;
    }
    if (start < chunk.length) keep(chunk.subarray(start));
    if (lines.length > 0) yield lines;
  }
  if (pendingLength > 0) yield [take(false)];
}
