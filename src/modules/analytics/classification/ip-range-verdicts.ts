// Whether an address lies in an agent's published ranges, remembered per address: crawlers of
// one operator come from few addresses, and checking the ranges (trim, a regular expression,
// isIP, BlockList) cost more than the rest of such a record's classification.

import type { Agent } from './agent-list.ts';
import { ipEvidence } from './steps/verification.ts';
import { StringFrontTable } from './string-front-table.ts';

// Sets of four addresses kept per agent; longer strings than any address are never kept.
const SETS = 256;
const MAX_CACHED_LENGTH = 64;

export class IpRangeVerdicts {
  readonly #agent: Agent;
  readonly #verdicts = new StringFrontTable<boolean>(SETS);

  constructor(agent: Agent) {
    this.#agent = agent;
  }

  /** ipEvidence(agent, ip) === 'in_ranges', as the verification step decides it. */
  inRanges(ip: string | undefined): boolean {
    if (ip === undefined || ip.length > MAX_CACHED_LENGTH) return ipEvidence(this.#agent, ip) === 'in_ranges';
    const known = this.#verdicts.get(ip);
    if (known !== undefined) return known;
    const inRanges = ipEvidence(this.#agent, ip) === 'in_ranges';
    this.#verdicts.set(ip, inRanges);
    return inRanges;
  }
}
