// Reads a secret value for the CLI: from a pipe (echo "$TOKEN" | docwright projects set-secret ...)
// or typed at a hidden prompt. Never from argv, where other users can see it in the process list.
import { stderr, stdin } from 'node:process';

export async function readSecretValue(label: string): Promise<string> {
  if (!stdin.isTTY) {
    const chunks: Buffer[] = [];
    for await (const chunk of stdin) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks)
      .toString('utf8')
      .replace(/\r?\n$/, '');
  }
  stderr.write(`${label} (input hidden, Enter to finish): `);
  stdin.setRawMode(true);
  stdin.resume();
  return new Promise<string>((resolve, reject) => {
    let value = '';
    const onData = (data: Buffer) => {
      for (const char of data.toString('utf8')) {
        if (char === '\r' || char === '\n') return finish(() => resolve(value));
        if (char === '\u0003') return finish(() => reject(new Error('cancelled')));
        if (char === '\u007f') value = value.slice(0, -1);
        else value += char;
      }
    };
    const finish = (then: () => void) => {
      stdin.off('data', onData);
      stdin.setRawMode(false);
      stdin.pause();
      stderr.write('\n');
      then();
    };
    stdin.on('data', onData);
  });
}
