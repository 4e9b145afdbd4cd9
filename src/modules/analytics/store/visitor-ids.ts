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
import { AddressIds } from './address-ids.ts';
import { canonicalIpv4 } from './canonical-ipv4.ts';
import { deleteSaltsBefore, insertSalt, selectSalt } from './visitor-queries.ts';
import type { VisitorClass } from './visitor-sets.ts';

const DAY_MS = 86_400_000;

/** Ids remembered per hasher before the memo is emptied, and the longest sender remembered: a few
 * tens of MB at most, whatever senders claim. */
const MEMO_LIMIT = 100_000;
const MEMO_MAX_LENGTH = 256;
/**
 * Sender numbers found by number below this: (sender + 1) × 2^32 + address stays exact in a
 * double (address-ids.ts, numbered-visits.ts). Far above what MEMO_LIMIT lets one generation make.
 */
const NUMBERED_SENDERS = 2 ** 20;
/** Sets of four user agents each in front of a project's memo (string-front-table.ts): 16 KiB. */
const FRONT_SETS = 256;

/**
 * The remembered ids of one sender: a human user agent's (its addresses), or a project's AI
 * agents' (theirs: an AI agent with an address is that address). Canonical IPv4 addresses are
 * found by their number in the hasher's pair memo under this sender's number; any other address
 * text (IPv6, other forms, none) by the text in `byText`.
 */
class SenderIds {
  readonly number: number;
  readonly byText = new Map<string, number>();

  constructor(number: number) {
    this.number = number;
  }
}

/**
 * One project's remembered ids. A human's sender is found by user agent: a user agent fresh from
 * JSON.parse has no hash yet, and a Map would hash all of its characters on every view (the
 * largest cost of a view's id when this was measured), so the front table finds it by a sample
 * of them and `===`.
 */
class ProjectIds {
  readonly humansFront = new StringFrontTable<SenderIds>(FRONT_SETS);
  readonly humans = new Map<string, SenderIds>();
  /**
   * The same senders by an object that stands for one user agent string (the fast path's profile
   * of it): found by identity, without sampling the string again. Several objects may stand for
   * one string over time (a profile dropped from its cache and made again); each finds the same.
   */
  readonly humansBySender = new Map<object, SenderIds>();
  /** AI agents with an address. */
  readonly agents: SenderIds;
  /** AI agents without an address, by user agent. */
  readonly agentsWithoutAddress = new Map<string, number>();

  constructor(agents: SenderIds) {
    this.agents = agents;
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
  /** Ids of canonical IPv4 addresses by (sender number, address number). */
  #byNumber = new AddressIds();
  #senders = 0;
  #memoised = 0;
  #generation = {};

  constructor(salt: Uint8Array) {
    this.#prefix = Buffer.from(salt).toString('hex');
  }

  /**
   * Stands for this hasher's sender numbers (senderNumber()) while they keep their meaning: a new
   * object whenever the memo starts over.
   */
  get generation(): object {
    return this.#generation;
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
    const project = projectId === this.#lastProjectId ? this.#lastProject! : this.#projectOf(projectId);
    let ids: SenderIds;
    if (agent === null) ids = project.agents;
    else if (visitorClass === 'ai') {
      const known = project.agentsWithoutAddress.get(agent);
      if (known !== undefined) return known;
      return this.#remember(project.agentsWithoutAddress, agent, projectId, visitorClass, address, agent);
    } else ids = this.#humanOf(project, agent, sender);
    const number = ids.number < NUMBERED_SENDERS ? canonicalIpv4(address) : -1;
    if (number === -1) {
      const known = ids.byText.get(address);
      if (known !== undefined) return known;
      return this.#remember(ids.byText, address, projectId, visitorClass, address, agent ?? '');
    }
    return this.numberedId(projectId, visitorClass, address, userAgent, ids.number, number);
  }

  /** The number of a canonical IPv4 address (canonical-ipv4.ts); -1 for any other text. */
  addressNumber(ip: string): number {
    return canonicalIpv4(ip);
  }

  /**
   * For a view from `ip`, a canonical IPv4 address (addressNumber() is not -1): the number of
   * its sender (a human user agent, or the project's AI agents), of this generation; -1 when its
   * id is not found by numbers (id() finds it). With the address's number it stands for the
   * visitor: the same numbers, the same id, while the generation lasts.
   */
  senderNumber(
    projectId: string,
    visitorClass: VisitorClass,
    ip: string,
    userAgent: string | undefined,
    sender?: object,
  ): number {
    const agent = visitorClass === 'ai' ? null : (userAgent ?? '');
    if (ip.length + (agent?.length ?? 0) > MEMO_MAX_LENGTH) return -1;
    const project = projectId === this.#lastProjectId ? this.#lastProject! : this.#projectOf(projectId);
    const number = agent === null ? project.agents.number : this.#humanOf(project, agent, sender).number;
    return number < NUMBERED_SENDERS ? number : -1;
  }

  /** The id of a view whose sender has `senderNumber` (senderNumber()) and address `address` (its number). */
  numberedId(
    projectId: string,
    visitorClass: VisitorClass,
    ip: string,
    userAgent: string | undefined,
    senderNumber: number,
    address: number,
  ): number {
    const known = this.#byNumber.get(senderNumber, address);
    if (known !== -1) return known;
    const id = this.#hash(projectId, visitorClass, ip, visitorClass === 'ai' ? '' : (userAgent ?? ''));
    if (this.#counted()) this.#byNumber.set(senderNumber, address, id);
    return id;
  }

  #projectOf(projectId: string): ProjectIds {
    let found = this.#projects.get(projectId);
    if (found === undefined) {
      found = new ProjectIds(new SenderIds(this.#senders++));
      this.#projects.set(projectId, found);
    }
    this.#lastProjectId = projectId;
    this.#lastProject = found;
    return found;
  }

  /** The sender of a human user agent, made when missing; `sender` stands for it (id()). */
  #humanOf(project: ProjectIds, userAgent: string, sender: object | undefined): SenderIds {
    if (sender !== undefined) {
      const bySender = project.humansBySender.get(sender);
      if (bySender !== undefined) return bySender;
    }
    let ids = project.humansFront.get(userAgent);
    if (ids === undefined) {
      ids = project.humans.get(userAgent);
      if (ids === undefined) {
        ids = new SenderIds(this.#senders++);
        project.humans.set(userAgent, ids);
      }
      project.humansFront.set(userAgent, ids);
    }
    if (sender !== undefined) {
      project.humansBySender.set(sender, ids);
      // Counted as an id is, so these entries are bounded by MEMO_LIMIT too.
      this.#memoised++;
    }
    return ids;
  }

  /** Hashes a sender not remembered and remembers it under `key` in `memo`. */
  #remember(
    memo: Map<string, number>,
    key: string,
    projectId: string,
    visitorClass: VisitorClass,
    address: string,
    agent: string,
  ): number {
    const id = this.#hash(projectId, visitorClass, address, agent);
    if (this.#counted()) memo.set(key, id);
    return id;
  }

  /** Counts one more remembered id; false (and the memo emptied) past MEMO_LIMIT. */
  #counted(): boolean {
    if (++this.#memoised <= MEMO_LIMIT) return true;
    this.#projects = new Map();
    this.#lastProjectId = null;
    this.#lastProject = null;
    this.#byNumber = new AddressIds();
    this.#senders = 0;
    this.#generation = {};
    this.#memoised = 0;
    return false;
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
