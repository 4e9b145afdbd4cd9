// The user-agent and verification steps for a record without signature headers, as the ingest
// fast path runs them: everything the user agent alone decides is worked out once per distinct
// string (a profile holding the few views it can lead to), and a record only adds its own facts,
// the Markdown path flag, the Accept header and, for an agent that publishes ranges, its IP.
// The rules are the steps' (steps/user-agent.ts, steps/verification.ts); a test compares the two
// on random records.

import { prefersMarkdownCached } from './accept-header.ts';
import type { Agent } from './agent-list.ts';
import type { ClassificationContext } from './context.ts';
import { GenerationalCache } from './generational-cache.ts';
import { IpRangeVerdicts } from './ip-range-verdicts.ts';
import { MARKDOWN_CLIENT, NO_USER_AGENT } from './steps/user-agent.ts';
import { StringFrontTable } from './string-front-table.ts';
import type { UnrecognizedAgent } from './unrecognized-agent.ts';
import type { UserAgentVerdict } from './user-agent-verdict.ts';
import { type ViewKind, viewKind } from './view-kind.ts';

export interface UserAgentProfile {
  /** The listed agent the string names; its claim may be verified by IP. */
  claimed: Agent | null;
  /** The view when nothing about the record changes it: an unverified claim, a bot or a human. */
  view: ViewKind;
  /** The view of a claim whose IP lies in the agent's ranges; null when no IP can verify it. */
  verified: ViewKind | null;
  /** The claimed agent's ranges, when `verified` is set. */
  ranges: IpRangeVerdicts | null;
  /** Whether Markdown signals make the client a `markdown-client` (named crawlers stay bots). */
  markdownCounts: boolean;
  browser: boolean;
  /** An automated-looking agent the list does not name (unrecognized-agent.ts); null otherwise. */
  unrecognized: UnrecognizedAgent | null;
}

// A Markdown fetch names no listed agent, so no IP range can verify it.
const MARKDOWN_CLIENT_VIEW = viewKind('ai', MARKDOWN_CLIENT, 'unverified');

// Distinct user agents kept per context: 2,048 sets of four in front, for hits that need not
// hash the string, and two generations of 5,000 behind.
const FRONT_SETS = 2_048;
const GENERATION_SIZE = 5_000;
// Longer strings are classified every time (the classifier keeps its own cache): the memory
// these caches hold stays bounded by entries times this length.
const MAX_CACHED_LENGTH = 512;

function profileOf(verdict: UserAgentVerdict, rangesOf: (agent: Agent) => IpRangeVerdicts): UserAgentProfile {
  const agent = verdict.agent;
  if (agent !== null) {
    // The verification step leaves a nameless agent's claim alone, and one without ranges
    // cannot be verified by IP.
    const verifiable = Boolean(agent.ranges) && agent.name !== '';
    return {
      claimed: agent,
      view: viewKind('ai', agent.name, 'unverified'),
      verified: verifiable ? viewKind('ai', agent.name, 'verified') : null,
      ranges: verifiable ? rangesOf(agent) : null,
      markdownCounts: false,
      browser: verdict.browser,
      unrecognized: null,
    };
  }
  const plain = verdict.empty
    ? viewKind('bot', NO_USER_AGENT, '')
    : verdict.bot !== null
      ? viewKind('bot', verdict.bot, '')
      : viewKind('human', '', '');
  return {
    claimed: null,
    view: plain,
    verified: null,
    ranges: null,
    markdownCounts: verdict.bot === null || verdict.genericClient,
    browser: verdict.browser,
    unrecognized: verdict.unrecognized,
  };
}

export class UserAgentProfiles {
  /** The classifier of the list these profiles were built from, kept even if the list changes. */
  readonly #userAgents: ClassificationContext['userAgents'];
  /** The agent list's generation these profiles were built from. */
  readonly generation: number;
  readonly #front = new StringFrontTable<UserAgentProfile>(FRONT_SETS);
  readonly #cache = new GenerationalCache<string, UserAgentProfile>(GENERATION_SIZE);
  /** One per listed agent that publishes ranges, shared by every user agent naming it. */
  readonly #ranges = new Map<Agent, IpRangeVerdicts>();
  readonly #rangesOf = (agent: Agent): IpRangeVerdicts => {
    let ranges = this.#ranges.get(agent);
    if (ranges === undefined) {
      ranges = new IpRangeVerdicts(agent);
      this.#ranges.set(agent, ranges);
    }
    return ranges;
  };

  constructor(context: ClassificationContext) {
    this.#userAgents = context.userAgents;
    this.generation = context.generation;
  }

  #classify(userAgent: string): UserAgentProfile {
    return profileOf(this.#userAgents.classify(userAgent), this.#rangesOf);
  }

  /**
   * The profile of a user agent (undefined: none sent); null when the string holds NUL, which
   * the record checks refuse. Only NUL-free strings are cached, so a hit needs no check.
   */
  profile(userAgent: string | undefined): UserAgentProfile | null {
    const key = userAgent ?? '';
    if (key.length > MAX_CACHED_LENGTH) {
      return key.includes('\0') ? null : this.#classify(key);
    }
    const inFront = this.#front.get(key);
    if (inFront !== undefined) return inFront;
    let profile = this.#cache.get(key);
    if (profile === undefined) {
      if (key.includes('\0')) return null;
      profile = this.#classify(key);
      this.#cache.set(key, profile);
    }
    this.#front.set(key, profile);
    return profile;
  }

  /** The view a record from this user agent counts as, given its own Markdown and IP facts. */
  static viewKind(
    profile: UserAgentProfile,
    markdownPath: boolean,
    accept: string | undefined,
    ip: string | undefined,
  ): ViewKind {
    if (profile.claimed !== null) {
      if (profile.verified === null) return profile.view;
      return profile.ranges!.inRanges(ip) ? profile.verified : profile.view;
    }
    if (profile.markdownCounts && (prefersMarkdownCached(accept) || (markdownPath && !profile.browser))) {
      return MARKDOWN_CLIENT_VIEW;
    }
    return profile.view;
  }
}

const profilesByContext = new WeakMap<ClassificationContext, UserAgentProfiles>();

/**
 * The profiles of a context's user agents, kept as long as the context is and its agent list
 * unchanged: a new synced version starts them afresh (one comparison per batch).
 */
export function userAgentProfilesOf(context: ClassificationContext): UserAgentProfiles {
  let profiles = profilesByContext.get(context);
  if (profiles === undefined || profiles.generation !== context.generation) {
    profiles = new UserAgentProfiles(context);
    profilesByContext.set(context, profiles);
  }
  return profiles;
}
