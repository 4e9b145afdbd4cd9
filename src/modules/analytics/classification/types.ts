// Shapes shared by the classification steps. A request record is what the ingest API, the log
// importer and the browser script hand over; a classified view is what the rollups count.

/** One request as seen by a docs server, an edge function or an access log. */
export interface RequestRecord {
  url?: string;
  path?: string;
  timestamp?: string | Date;
  userAgent?: string;
  ip?: string;
  accept?: string;
  referrer?: string;
  method?: string;
  status?: number;
  /** Extra request headers, e.g. the Web Bot Auth signature headers. Names in any case. */
  headers?: Record<string, string>;
}

export type TrafficClass = 'human' | 'ai' | 'bot';

// Agent categories are wire values (the agents report's category): declared in the contract.
import type { AgentCategory } from '../../../contract/index.ts';

export { AGENT_CATEGORIES } from '../../../contract/index.ts';
export type { AgentCategory };
export type Verification = 'verified' | 'unverified' | '';

/** Why a record was not counted as a page view. Callers count these per batch. */
export type DropReason =
  | 'method_not_counted'
  | 'status_not_counted'
  | 'path_missing'
  | 'path_invalid'
  | 'path_too_long'
  | 'asset';

export const DROP_REASONS: readonly DropReason[] = [
  'method_not_counted',
  'status_not_counted',
  'path_missing',
  'path_invalid',
  'path_too_long',
  'asset',
];

export type StepName = 'method' | 'status' | 'path' | 'asset' | 'user_agent' | 'verification';

/** Which rule decided the class. */
export type ClassRule =
  | 'web_bot_auth'
  | 'agent_token'
  | 'markdown_client'
  | 'mcp_client'
  | 'bot'
  | 'no_user_agent'
  | 'human_default';

/** How a claimed agent's IP address compared with its operator's published ranges. */
export type IpEvidence = 'in_ranges' | 'outside_ranges' | 'no_ranges' | 'no_ip' | 'invalid_ip';

export type WebBotAuthOutcome =
  | 'valid'
  | 'expired'
  | 'not_yet_valid'
  | 'unknown_key'
  | 'bad_signature'
  | 'malformed'
  | 'unsupported'
  | 'agent_not_covered'
  | 'agent_url_refused'
  | 'directory_unavailable'
  | 'directory_pending';

export interface WebBotAuthEvidence {
  outcome: WebBotAuthOutcome;
  /** The Signature-Agent URL the signature covers, when one could be read. */
  signatureAgent?: string;
  keyid?: string;
  /** A short human explanation for the outcomes that are not `valid`. */
  detail?: string;
}

export interface Evidence {
  rule: ClassRule;
  /** The whole-word user-agent token that matched an agent. */
  token?: string;
  /** Why a record counts as a Markdown fetch. */
  markdown?: 'md_path' | 'accept';
  ip?: IpEvidence;
  webBotAuth?: WebBotAuthEvidence;
}

/** A counted page view. */
export interface ClassifiedView {
  path: string;
  markdown: boolean;
  class: TrafficClass;
  /** Agent name for `ai` and `bot`; '' for humans. */
  agent: string;
  operator?: string;
  category?: AgentCategory;
  verification: Verification;
  evidence: Evidence;
}

export interface Dropped {
  drop: DropReason;
  step: StepName;
}

export type ClassificationOutcome = ClassifiedView | Dropped;

export function isDropped(outcome: ClassificationOutcome): outcome is Dropped {
  return 'drop' in outcome;
}
