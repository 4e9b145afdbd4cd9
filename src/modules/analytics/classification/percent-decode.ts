// Decodes %XX escapes in a URL path so that `/caf%C3%A9` and `/café` count as one page, without
// ever changing what the path means or failing on bad input:
// - bytes that would change the path's structure or hide control characters stay escaped
//   (`%2F` is not a `/`, `%25` is not a `%`, `%3F`/`%23` are not query or fragment marks);
// - a run of escapes that is not valid UTF-8 is kept as it was written (hex in upper case, so
//   `%ff` and `%FF` still count as one path). Invalid input is kept, not dropped: the request
//   really was made for that path.

const decoder = new TextDecoder('utf-8', { fatal: true });

function isHex(code: number): boolean {
  return (code >= 48 && code <= 57) || (code >= 65 && code <= 70) || (code >= 97 && code <= 102);
}

/** Bytes that keep their escape: controls, space, '"', '#', '%', '/', '?', DEL and '\'. */
function staysEscaped(byte: number): boolean {
  return (
    byte < 0x21 ||
    byte === 0x22 ||
    byte === 0x23 ||
    byte === 0x25 ||
    byte === 0x2f ||
    byte === 0x3f ||
    byte === 0x5c ||
    byte === 0x7f
  );
}

function escapeByte(byte: number): string {
  return `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
}

function decodeRun(bytes: number[]): string {
  let out = '';
  let pending: number[] = [];
  const flush = () => {
    if (pending.length === 0) return;
    try {
      out += decoder.decode(Uint8Array.from(pending));
    } catch {
      out += pending.map(escapeByte).join('');
    }
    pending = [];
  };
  for (const byte of bytes) {
    if (staysEscaped(byte)) {
      flush();
      out += escapeByte(byte);
    } else {
      pending.push(byte);
    }
  }
  flush();
  return out;
}

export function decodePercentEscapes(path: string): string {
  if (!path.includes('%')) return path;
  let out = '';
  let i = 0;
  while (i < path.length) {
    if (path.charCodeAt(i) !== 37 /* % */) {
      out += path[i];
      i++;
      continue;
    }
    const bytes: number[] = [];
    while (
      i + 2 < path.length &&
      path.charCodeAt(i) === 37 &&
      isHex(path.charCodeAt(i + 1)) &&
      isHex(path.charCodeAt(i + 2))
    ) {
      bytes.push(Number.parseInt(path.slice(i + 1, i + 3), 16));
      i += 3;
    }
    if (bytes.length === 0) {
      // A lone '%' not followed by two hex digits: keep it as written.
      out += '%';
      i++;
      continue;
    }
    out += decodeRun(bytes);
  }
  return out;
}
