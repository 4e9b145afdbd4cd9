// The ingest fast path: the common record (a JSON object with string fields, a Z timestamp, no
// signature headers) checked and classified with cached verdicts and no per-record objects.
// General checks (record-validation.ts) and the general pipeline cost several microseconds per
// record, most of it spent again on the same user agents, pages and timestamp forms.
//
// This path only ever says "counted as this view" or "dropped for this reason" when the general
// path would say the same; for anything else (a check that fails, a field of an unusual type or
// form, signature headers) it declines and the general path decides, so every rejection and its
// message still come from record-validation.ts. test/analytics/ingest-fast-path.test.ts compares
// the two on random records.

import { MAX_FUTURE_MS } from '../../../contract/index.ts';
import { hourNumberOf } from '../../../util/time.ts';
import { prefersMarkdownCached } from '../classification/accept-header.ts';
import { pageTargetOf } from '../classification/page-targets.ts';
import { isCountedMethod } from '../classification/steps/method.ts';
import { isCountedStatus } from '../classification/steps/status.ts';
import { UserAgentProfiles } from '../classification/user-agent-profiles.ts';
import { commonTimestampHour } from '../date-bounds.ts';
import type { UnrecognizedTally } from '../unrecognized-agents.ts';
import type { OutcomeSink } from './rollup-tally.ts';

/** Absent, or a string the database can store (PostgreSQL text cannot hold NUL). */
function isOptionalCleanText(value: unknown): value is string | undefined {
  return value === undefined || (typeof value === 'string' && !value.includes('\0'));
}

function isOptionalText(value: unknown): value is string | undefined {
  return value === undefined || typeof value === 'string';
}

/** Not blank as record-validation.ts means it (trim() leaves something). */
function isNotBlank(text: string): boolean {
  const first = text.charCodeAt(0);
  // A printable ASCII first character is never trimmed away; only other strings need trim().
  return (first > 32 && first < 127) || text.trim() !== '';
}

function isValidStatus(status: unknown): boolean {
  return (
    status === undefined ||
    (Number.isInteger(status) && (status as number) >= 100 && (status as number) <= 599)
  );
}

/**
 * Checks and classifies one record when it is a common one and reports its outcome to `sink`;
 * false (nothing reported) when the general path must decide. Views of user agents the agent
 * list does not know but that look automated are also counted in `unrecognized`.
 */
export function ingestCommonRecord(
  item: unknown,
  index: number,
  receivedAtMs: number,
  profiles: UserAgentProfiles,
  sink: OutcomeSink,
  unrecognized?: UnrecognizedTally,
): boolean {
  if (typeof item !== 'object' || item === null) return false;
  const fields = item as Record<string, unknown>;
  // Objects parsed from JSON have Object as their constructor; arrays, MalformedLine and a record
  // with a field named "constructor" do not, and take the general path.
  if (fields.constructor !== Object || fields.headers !== undefined) return false;
  // MCP records, a named format and the MCP fields are checked by the general path.
  if (
    fields.type !== undefined ||
    fields.format !== undefined ||
    fields.tool !== undefined ||
    fields.clientName !== undefined ||
    fields.clientVersion !== undefined
  )
    return false;
  const { url, path, timestamp, userAgent, ip, accept, referrer, method, status } = fields;

  // record-validation.ts's checks, all of them, before any outcome is reported.
  if (!isOptionalText(url) || !isOptionalText(path)) return false;
  if (!isOptionalCleanText(ip) || !isOptionalCleanText(accept) || !isOptionalCleanText(referrer))
    return false;
  if (method !== 'GET' && !isOptionalCleanText(method)) return false;
  if (!isValidStatus(status)) return false;
  if (userAgent !== undefined && typeof userAgent !== 'string') return false;
  // A non-blank path wins over the url, as in the record the general checks build.
  const target =
    path !== undefined && isNotBlank(path) ? path : url !== undefined && isNotBlank(url) ? url : undefined;
  if (target === undefined) return false;
  // The target is checked for NUL by the page lookup below; the other one here.
  const other = target === path ? url : path;
  if (other?.includes('\0')) return false;
  // The hour as hours since the epoch, a small integer: epoch milliseconds would be a heap
  // number per record (docs/ingestion.md, "Fewer allocations per record").
  let hour: number;
  if (timestamp === undefined) hour = hourNumberOf(receivedAtMs);
  else {
    if (typeof timestamp !== 'string') return false;
    hour = commonTimestampHour(timestamp, receivedAtMs, MAX_FUTURE_MS);
    // NaN: not the common form, or too far ahead.
    if (Number.isNaN(hour)) return false;
  }
  const profile = profiles.profile(userAgent);
  if (profile === null) return false;
  // Looked up before the method and status steps could drop the record, for its NUL check.
  const page = pageTargetOf(target);
  if (page === null) return false;

  // The pipeline's steps in their order: method, status, path, asset, user agent, verification.
  if (!isCountedMethod(method)) sink.drop('method_not_counted');
  else if (!isCountedStatus(status)) sink.drop('status_not_counted');
  else {
    if (page.drop !== null) sink.drop(page.drop);
    else {
      const kind = UserAgentProfiles.viewKind(profile, page.markdown, accept, ip);
      // The page's own format unless an Accept header turns an html page into markdown.
      const format =
        page.format === 'html' && accept !== undefined && prefersMarkdownCached(accept)
          ? 'markdown'
          : page.format;
      sink.view(
        index,
        hour,
        kind,
        page.path,
        page.pathHasNul,
        ip,
        userAgent,
        referrer,
        target,
        format,
        null,
        // The profile stands for this user agent string alone: the visitor memo finds it by identity.
        profile,
      );
      if (profile.unrecognized !== null) unrecognized?.add(profile.unrecognized, kind.trafficClass);
    }
  }
  return true;
}
