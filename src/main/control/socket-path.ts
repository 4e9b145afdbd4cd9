// Where the server's control socket lives: in the data directory, which only its owner can enter.
// A unix socket path is limited to 107 bytes on Linux; a deeper data directory gets its socket in
// a fresh private directory under the system temp dir instead (the lockfile says where).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const MAX_SOCKET_PATH_BYTES = 107;

export function chooseControlSocketPath(dataDir: string): { path: string; privateDir: string | null } {
  const inDataDir = join(dataDir, 'control.sock');
  if (Buffer.byteLength(inDataDir) <= MAX_SOCKET_PATH_BYTES) return { path: inDataDir, privateDir: null };
  const privateDir = mkdtempSync(join(tmpdir(), 'docwright-')); // mode 0700
  return { path: join(privateDir, 'control.sock'), privateDir };
}
