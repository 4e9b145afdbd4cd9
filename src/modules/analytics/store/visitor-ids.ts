// Visitor ids, never stored raw: SHA-256 over (the day's secret salt, project, IP address, user
// agent), cut to 53 bits. An AI agent's id leaves the user agent out: its requests from one IP
// address are one visitor, whatever it calls itself. The salt is random (32 bytes), made for the
// UTC day a view is received on, kept in visitor_salts (secret: never logged nor answered) and
// deleted once that day is over, so ids of two days cannot be linked, and an id cannot be turned
// back into an address by trying them all. Views ingested the same day share a salt whatever
// their own timestamps; a log import hashes by each line's own day (import/visitor-days.ts).
import { hash, randomBytes } from 'node:crypto';
import type { Queryable } from '../../../db/database.ts';
import { StringFrontTable } from '../classification/string-front-table.ts';
import { deleteSaltsBefore, insertSalt, selectSalt } from './visitor-queries.ts';
import type { VisitorClass } from './visitor-sets.ts';

const DAY_MS = 86_400_000;

/** Ids remembered per hasher before the memo is emptied, and the longest sender remembered: a few
 * tens of MB at most, whatever senders claim. */
const MEMO_LIMIT = 100_000;
const MEMO_MAX_LENGTH = 256;
/** Sets of four user agents each in front of a project's memo (string-front-table.ts): 16 KiB. */
const FRONT_SETS = 256;

/**
 * One project's remembered ids. A human's id is found by user agent, then address: a user agent
 * fresh from JSON.parse has no hash yet, and a Map would hash all of its characters on every
 * view (the largest cost of a view's id when this was measured), so the front table finds it by
 * a sample of them and `===`. An AI agent with an address is found by the address alone.
 */
class ProjectIds {
  readonly humansFront = new StringFrontTable<Map<string, number>>(FRONT_SETS);
  readonly humans = new Map<string, Map<string, number>>();
  /**
   * The same maps by an object that stands for one user agent string (the fast path's profile
   * of it): found by identity, without sampling the string again. Several objects may stand for
   * one string over time (a profile dropped from its cache and made again); each shares the map.
   */
  readonly humansBySender = new Map<object, Map<string, number>>();
  /** AI agents by address; those without one by user agent. */
  readonly agents = new Map<string, number>();
  readonly agentsWithoutAddress = new Map<string, number>();

  /** The map of a human user agent's addresses, made empty when missing. */
  humansOf(userAgent: string): Map<string, number> {
    const inFront = this.humansFront.get(userAgent);
    if (inFront !== undefined) return inFront;
    let byAddress = this.humans.get(userAgent);
    if (byAddress === undefined) {
      byAddress = new Map();
      this.humans.set(userAgent, byAddress);
    }
    this.humansFront.set(userAgent, byAddress);
    return byAddress;
  }
}

/** Makes the ids of one day's views. */
export class VisitorHasher {
  readonly #prefix: string;
  // SHA-256 of a short text costs several times what the rest of a record's ingest does; readers
  // send many views a day, so their ids are remembered (in memory only, for this day's salt).
  #projects = new Map<string, ProjectIds>();
  #lastProjectId: string | null = null;
  #lastProject: ProjectIds | null = null;
  #memoised = 0;

  constructor(salt: Uint8Array) {
    this.#prefix = Buffer.from(salt).toString('hex');
  }

  /**
   * The id of a view's sender; null when nothing identifies it (neither address nor user agent).
   * `sender`, when given, is an object that stands for `userAgent` alone and only ever for that
   * string (ingest passes its cached profile of the user agent): it finds the memo faster.
   */
  id(
    projectId: string,
    visitorClass: VisitorClass,
    ip: string | undefined,
    userAgent: string | undefined,
    sender?: object,
  ): number | null {
    if (!ip && !userAgent) return null;
    const address = ip ?? '';
    // An AI agent with an address is that address, whatever it calls itself.
    const agent = visitorClass === 'ai' && ip ? null : (userAgent ?? '');
    if (address.length + (agent?.length ?? 0) > MEMO_MAX_LENGTH)
      return this.#hash(projectId, visitorClass, address, agent ?? '');
    // A request's views are all of one project: remembered.
    let project: ProjectIds;
    if (projectId === this.#lastProjectId) project = this.#lastProject!;
    else {
      let found = this.#projects.get(projectId);
      if (found === undefined) {
        found = new ProjectIds();
        this.#projects.set(projectId, found);
      }
      project = found;
      this.#lastProjectId = projectId;
      this.#lastProject = found;
    }
    let memo: Map<string, number>;
    let key: string;
    if (agent === null) {
      memo = project.agents;
      key = address;
    } else if (visitorClass === 'ai') {
      memo = project.agentsWithoutAddress;
      key = agent;
    } else {
      const bySender = sender === undefined ? undefined : project.humansBySender.get(sender);
      if (bySender !== undefined) memo = bySender;
      else {
        memo = project.humansOf(agent);
        if (sender !== undefined) {
          project.humansBySender.set(sender, memo);
          // Counted as an id is, so these entries are bounded by MEMO_LIMIT too.
          this.#memoised++;
        }
      }
      key = address;
    }
    const known = memo.get(key);
    if (known !== undefined) return known;
    const id = this.#hash(projectId, visitorClass, address, agent ?? '');
    if (++this.#memoised > MEMO_LIMIT) {
      this.#projects = new Map();
      this.#lastProjectId = null;
      this.#lastProject = null;
      this.#memoised = 0;
    } else memo.set(key, id);
    return id;
  }

  #hash(projectId: string, visitorClass: VisitorClass, address: string, agent: string): number {
    // NUL cannot occur in a project id, and separates the parts unambiguously enough for a
    // count: an address or user agent holding NUL only collides with itself.
    const digest = hash(
      'sha256',
      `${this.#prefix}\0${projectId}\0${visitorClass}\0${address}\0${agent}`,
      'buffer',
    );
    // 48 bits and 5 more: an integer below 2^53, exact in a double.
    return digest.readUIntBE(0, 6) * 32 + (digest[6]! >>> 3);
  }
}

/** The salt of the current UTC day, made on first use and cached; older salts deleted. */
export class VisitorSalts {
  readonly #db: Queryable;
  #day = '';
  #hasher: VisitorHasher | null = null;
  #loading: Promise<VisitorHasher> | null = null;

  constructor(db: Queryable) {
    this.#db = db;
  }

  /** The hasher for views received at `nowMs`. */
  async hasherAt(nowMs: number): Promise<VisitorHasher> {
    const day = utcDayOf(nowMs);
    if (day === this.#day && this.#hasher !== null) return this.#hasher;
    this.#loading ??= this.#load(day).finally(() => {
      this.#loading = null;
    });
    const hasher = await this.#loading;
    // Another day's load may have been running: load this one then.
    return day === this.#day ? hasher : this.hasherAt(nowMs);
  }

  async #load(day: string): Promise<VisitorHasher> {
    this.#hasher = new VisitorHasher(await currentDaySalt(this.#db, day));
    this.#day = day;
    return this.#hasher;
  }
}

/** The UTC day (YYYY-MM-DD) of a time. */
export function utcDayOf(ms: number): string {
  return new Date(Math.floor(ms / DAY_MS) * DAY_MS).toISOString().slice(0, 10);
}

/**
 * The salt of `day`, the current UTC day, made when missing (another process's wins); the salts
 * of the days before are deleted. Ingest and a log import's lines of the current day share it.
 */
export async function currentDaySalt(db: Queryable, day: string): Promise<Uint8Array> {
  await deleteSaltsBefore(db, day);
  let salt = await selectSalt(db, day);
  if (salt === null) {
    await insertSalt(db, day, randomBytes(32).toString('hex'));
    salt = await selectSalt(db, day);
  }
  return salt!;
}
