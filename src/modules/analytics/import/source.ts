// Opens what import-logs reads: a file or standard input, gzip-compressed or not (recognised by
// its first bytes, whatever its name), counting the raw bytes read so progress can be shown.
import { createReadStream, statSync } from 'node:fs';
import { basename } from 'node:path';
import { PassThrough, type Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';

export interface LogSource {
  /** What the user named: a path, or "-" for standard input. */
  name: string;
  /** The decompressed bytes. */
  stream: Readable;
  compressed: boolean;
  /** Raw (compressed) bytes read so far, and in all when known. */
  bytesRead(): number;
  totalBytes: number | null;
  /**
   * Whether a last line without "\n" is complete. A plain file may still be written to (a live
   * access log): its unterminated last line is left for the next import. A gzip file or a pipe
   * that ended is finished.
   */
  lastLineComplete: boolean;
}

const GZIP_MAGIC = [0x1f, 0x8b];

/** The first bytes of a stream, put back so that the stream still starts with them. */
async function peek(stream: Readable): Promise<Buffer> {
  for (;;) {
    const chunk = stream.read() as Buffer | null;
    if (chunk !== null) {
      stream.unshift(chunk);
      return chunk;
    }
    if (stream.readableEnded || stream.destroyed) return Buffer.alloc(0);
    await new Promise<void>((resolve, reject) => {
      const done = () => {
        stream.off('readable', done);
        stream.off('end', done);
        stream.off('error', failed);
        resolve();
      };
      const failed = (error: Error) => {
        stream.off('readable', done);
        stream.off('end', done);
        reject(error);
      };
      stream.once('readable', done);
      stream.once('end', done);
      stream.once('error', failed);
    });
  }
}

export async function openLogSource(name: string, stdin: Readable = process.stdin): Promise<LogSource> {
  const isStdin = name === '-';
  let totalBytes: number | null = null;
  let raw: Readable;
  if (isStdin) {
    raw = stdin;
  } else {
    const stat = statSync(name); // ENOENT and EACCES surface here, before anything is read
    if (stat.isDirectory()) throw Object.assign(new Error(`${name} is a directory`), { code: 'EISDIR' });
    totalBytes = stat.isFile() ? stat.size : null;
    raw = createReadStream(name, { highWaterMark: 256 * 1024 });
  }
  let bytes = 0;
  const counted = new PassThrough({ highWaterMark: 256 * 1024 });
  raw.on('data', (chunk: Buffer) => {
    bytes += chunk.length;
  });
  raw.on('error', (error) => counted.destroy(error));
  raw.pipe(counted);

  const head = await peek(counted);
  const compressed = head.length >= 2 && head[0] === GZIP_MAGIC[0] && head[1] === GZIP_MAGIC[1];
  let stream: Readable = counted;
  if (compressed) {
    const gunzip = createGunzip();
    counted.on('error', (error) => gunzip.destroy(error));
    stream = counted.pipe(gunzip);
  }
  return {
    name: isStdin ? '-' : name,
    stream,
    compressed,
    bytesRead: () => bytes,
    totalBytes,
    lastLineComplete: isStdin || compressed || totalBytes === null,
  };
}

/** The name shown in the ledger and the summary. */
export function displayName(name: string): string {
  return name === '-' ? '(stdin)' : basename(name);
}
