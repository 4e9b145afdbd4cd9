// Reads the Prometheus text exposition format (version 0.0.4) back into samples, so tests can ask
// for one series by name and labels. Written from the format's description at
// prometheus.io/docs/instrumenting/exposition_formats: `name{label="value",...} value`, label
// values escaping \\, \" and \n; # HELP and # TYPE lines.

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Exposition {
  samples: Sample[];
  /** # TYPE per metric family. */
  types: Map<string, string>;
  /** The one sample with this name and exactly these labels (in any order), or undefined. */
  value(name: string, labels?: Record<string, string>): number | undefined;
  /** Every sample of this name whose labels include the given ones. */
  matching(name: string, labels?: Record<string, string>): Sample[];
}

export function parseExposition(text: string): Exposition {
  const samples: Sample[] = [];
  const types = new Map<string, string>();
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    if (line.startsWith('#')) {
      const type = /^# TYPE (\S+) (\S+)$/.exec(line);
      if (type) types.set(type[1]!, type[2]!);
      continue;
    }
    samples.push(parseSample(line));
  }
  const includes = (sample: Sample, labels: Record<string, string>) =>
    Object.entries(labels).every(([k, v]) => sample.labels[k] === v);
  return {
    samples,
    types,
    value(name, labels = {}) {
      const found = samples.filter(
        (s) =>
          s.name === name &&
          includes(s, labels) &&
          Object.keys(s.labels).length === Object.keys(labels).length,
      );
      if (found.length > 1) throw new Error(`${found.length} samples of ${name} match`);
      return found[0]?.value;
    },
    matching(name, labels = {}) {
      return samples.filter((s) => s.name === name && includes(s, labels));
    },
  };
}

function parseSample(line: string): Sample {
  const name = /^[a-zA-Z_:][a-zA-Z0-9_:]*/.exec(line)?.[0];
  if (!name) throw new Error(`not a sample line: ${line}`);
  let at = name.length;
  const labels: Record<string, string> = {};
  if (line[at] === '{') {
    at++;
    while (line[at] !== '}') {
      const label = /^([a-zA-Z_][a-zA-Z0-9_]*)="/.exec(line.slice(at));
      if (!label) throw new Error(`bad label at ${at} in: ${line}`);
      at += label[0].length;
      let value = '';
      while (line[at] !== '"') {
        if (at >= line.length) throw new Error(`unterminated label value in: ${line}`);
        if (line[at] === '\\') {
          const next = line[at + 1];
          value += next === 'n' ? '\n' : next;
          at += 2;
        } else value += line[at++];
      }
      labels[label[1]!] = value;
      at++;
      if (line[at] === ',') at++;
    }
    at++;
  }
  const rest = line.slice(at).trim().split(/\s+/);
  const raw = rest[0]!;
  const value = raw === '+Inf' ? Infinity : raw === '-Inf' ? -Infinity : Number(raw);
  if (Number.isNaN(value) && raw !== 'NaN') throw new Error(`bad value in: ${line}`);
  return { name, labels, value };
}
