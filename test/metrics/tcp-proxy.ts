// A TCP proxy between the app and PostgreSQL that a test can break the way networks break:
// cut() resets every open connection and refuses new ones (the server went away); stall() keeps
// connections open but passes no byte either way (a partition: packets vanish, nobody is told);
// restore() lets traffic through again (stalled bytes are delivered, as TCP would retransmit them).
import { once } from 'node:events';
import { connect, createServer, type Server, type Socket } from 'node:net';

export interface TcpProxy {
  port: number;
  /** How many client connections the proxy has accepted so far. */
  readonly accepted: number;
  cut(): void;
  stall(): void;
  restore(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  let mode: 'open' | 'cut' | 'stalled' = 'open';
  let accepted = 0;
  const pairs = new Set<{ client: Socket; upstream: Socket }>();
  // Bytes held back while stalled, in arrival order, with where they were going.
  let held: { to: Socket; chunk: Buffer }[] = [];
  const forward = (to: Socket) => (chunk: Buffer) => {
    if (mode === 'stalled') held.push({ to, chunk });
    else if (!to.destroyed) to.write(chunk);
  };

  const server: Server = createServer((client) => {
    accepted++;
    if (mode === 'cut') {
      client.resetAndDestroy();
      return;
    }
    const upstream = connect(target.port, target.host);
    const pair = { client, upstream };
    pairs.add(pair);
    client.on('data', forward(upstream));
    upstream.on('data', forward(client));
    const drop = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');

  return {
    port: address.port,
    get accepted() {
      return accepted;
    },
    cut() {
      mode = 'cut';
      for (const { client, upstream } of pairs) {
        client.resetAndDestroy();
        upstream.destroy();
      }
      pairs.clear();
    },
    stall() {
      mode = 'stalled';
    },
    restore() {
      mode = 'open';
      for (const { to, chunk } of held) if (!to.destroyed) to.write(chunk);
      held = [];
    },
    async close() {
      for (const { client, upstream } of pairs) {
        client.destroy();
        upstream.destroy();
      }
      server.close();
      await once(server, 'close');
    },
  };
}
