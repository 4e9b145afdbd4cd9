// The visitor ids of a batch of views, per (project, hour, class, path): what ingest carries next
// to its ViewSums until they are folded into the sketches (visitor-writes.ts), which also keep
// them under the path '' (the whole site). Only human and AI views have visitors; non-AI bots are
// never counted as visitors.

import { ProjectHours } from './project-hours.ts';

export type VisitorClass = 'human' | 'ai';

/** The first byte of encodeBinary()'s form. */
const BINARY_VERSION = 1;

/** The site-wide key: no page path is empty (paths start with "/"). */
export const SITE_PATH = '';

type ByPath = Map<string, Set<number>>;
type ByClass = Map<VisitorClass, ByPath>;

/**
 * The staged form before migration 0021 (JSON text): one entry per (project, hour, class, path)
 * with its ids. Rows of it may wait at an upgrade; the fold still reads them (addEncoded).
 */
export type EncodedVisitors = [
  projectId: string,
  hourSeconds: number,
  visitorClass: VisitorClass,
  path: string,
  /** The ids as little-endian float64s in base64: several times faster to write than JSON numbers. */
  ids: string,
][];

export interface VisitorSet {
  projectId: string;
  hourSeconds: number;
  visitorClass: VisitorClass;
  path: string;
  ids: ReadonlySet<number>;
}

export class VisitorSets {
  readonly #hours = new ProjectHours<ByClass>(() => new Map());
  /**
   * Other sets added whole (a group commit's requests, a merge's groups): kept as they are instead
   * of copied id by id. Their entries may repeat this one's keys; a sketch counts each id once.
   */
  readonly #parts: VisitorSets[] = [];

  get isEmpty(): boolean {
    return this.#hours.isEmpty && this.#parts.every((part) => part.isEmpty);
  }

  /** One view's visitor on its page (the whole site's sets are made when folding: visitor-writes.ts). */
  add(projectId: string, hourSeconds: number, visitorClass: VisitorClass, path: string, id: number): void {
    addId(this.#pathsOf(projectId, hourSeconds, visitorClass), path, id);
  }

  /** The ids held for one key (parts added whole left out), if any. */
  idsOf(
    projectId: string,
    hourSeconds: number,
    visitorClass: VisitorClass,
    path: string,
  ): ReadonlySet<number> | undefined {
    return this.#hours.find(projectId, hourSeconds)?.get(visitorClass)?.get(path);
  }

  /** Adds every id other holds; other must not change afterwards (it is kept, not copied). */
  addSets(other: VisitorSets): void {
    if (other !== this && !other.isEmpty) this.#parts.push(other);
  }

  /** The staged form before migration 0021 (tests make rows of it; ingest stages encodeBinary()). */
  encode(): EncodedVisitors {
    return [...this.entries()].map((s) => [
      s.projectId,
      s.hourSeconds,
      s.visitorClass,
      s.path,
      Buffer.from(Float64Array.from(s.ids).buffer).toString('base64'),
    ]);
  }

  /**
   * The staged form (bytea, migration 0021): a version byte (1), then per (project, hour, class,
   * path): the project's UTF-8 length (uint16) and bytes, the hour in epoch seconds (float64),
   * the class (0 human, 1 ai), the path's UTF-8 length (uint32) and bytes, the count of ids
   * (uint32) and the ids (float64 each), all little-endian. Sent as a binary parameter: no text
   * encoding, JSON or escaping on either side, and 8 bytes per id instead of base64's 10.7.
   */
  encodeBinary(): Buffer {
    const sets = [...this.entries()];
    let size = 1;
    for (const set of sets)
      size +=
        2 + Buffer.byteLength(set.projectId) + 8 + 1 + 4 + Buffer.byteLength(set.path) + 4 + 8 * set.ids.size;
    const bytes = Buffer.allocUnsafe(size);
    let at = bytes.writeUInt8(BINARY_VERSION, 0);
    for (const set of sets) {
      const projectLength = bytes.write(set.projectId, at + 2);
      at = bytes.writeUInt16LE(projectLength, at) + projectLength;
      at = bytes.writeDoubleLE(set.hourSeconds, at);
      at = bytes.writeUInt8(set.visitorClass === 'human' ? 0 : 1, at);
      const pathLength = bytes.write(set.path, at + 4);
      at = bytes.writeUInt32LE(pathLength, at) + pathLength;
      at = bytes.writeUInt32LE(set.ids.size, at);
      for (const id of set.ids) at = bytes.writeDoubleLE(id, at);
    }
    return bytes;
  }

  /** Adds what encodeBinary() gave; a RangeError when the bytes are not of that form. */
  addBinary(bytes: Uint8Array): void {
    const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    if (buffer.length === 0 || buffer[0] !== BINARY_VERSION)
      throw new RangeError(`staged visitor ids: unknown form ${buffer[0]}`);
    let at = 1;
    while (at < buffer.length) {
      const projectLength = buffer.readUInt16LE(at);
      const projectId = buffer.toString('utf8', at + 2, at + 2 + projectLength);
      at += 2 + projectLength;
      const hourSeconds = buffer.readDoubleLE(at);
      const visitorClass: VisitorClass = buffer.readUInt8(at + 8) === 0 ? 'human' : 'ai';
      at += 9;
      const pathLength = buffer.readUInt32LE(at);
      const path = buffer.toString('utf8', at + 4, at + 4 + pathLength);
      at += 4 + pathLength;
      const count = buffer.readUInt32LE(at);
      at += 4;
      if (at + 8 * count > buffer.length) throw new RangeError('staged visitor ids: cut short');
      const byPath = this.#pathsOf(projectId, hourSeconds, visitorClass);
      for (let i = 0; i < count; i++, at += 8) addId(byPath, path, buffer.readDoubleLE(at));
    }
  }

  /** Adds what encode() gave (parsed back from JSON). */
  addEncoded(entries: EncodedVisitors): void {
    for (const [projectId, hourSeconds, visitorClass, path, ids] of entries) {
      const bytes = Buffer.from(ids, 'base64');
      const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      const decoded: number[] = [];
      for (let at = 0; at + 8 <= bytes.length; at += 8) decoded.push(view.getFloat64(at, true));
      this.#addAll(projectId, hourSeconds, visitorClass, path, decoded);
    }
  }

  /** The sets of the given projects only (a deleted project's staged ids are dropped). */
  only(projectIds: ReadonlySet<string>): VisitorSets {
    const kept = new VisitorSets();
    for (const set of this.entries())
      if (projectIds.has(set.projectId))
        kept.#addAll(set.projectId, set.hourSeconds, set.visitorClass, set.path, set.ids);
    return kept;
  }

  *entries(): IterableIterator<VisitorSet> {
    for (const [projectId, byHour] of this.#hours.byProject)
      for (const [hourSeconds, byClass] of byHour)
        for (const [visitorClass, byPath] of byClass)
          for (const [path, ids] of byPath) yield { projectId, hourSeconds, visitorClass, path, ids };
    for (const part of this.#parts) yield* part.entries();
  }

  #addAll(
    projectId: string,
    hourSeconds: number,
    visitorClass: VisitorClass,
    path: string,
    ids: Iterable<number>,
  ) {
    const byPath = this.#pathsOf(projectId, hourSeconds, visitorClass);
    for (const id of ids) addId(byPath, path, id);
  }

  #pathsOf(projectId: string, hourSeconds: number, visitorClass: VisitorClass): ByPath {
    const byClass = this.#hours.get(projectId, hourSeconds);
    let byPath = byClass.get(visitorClass);
    if (byPath === undefined) {
      byPath = new Map();
      byClass.set(visitorClass, byPath);
    }
    return byPath;
  }
}

function addId(byPath: ByPath, path: string, id: number): void {
  const ids = byPath.get(path);
  if (ids === undefined) byPath.set(path, new Set([id]));
  else ids.add(id);
}
