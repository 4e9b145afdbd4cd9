// GitLab's comment webhooks on merge requests (the token is checked by gitlab.ts first): the Note
// Hook with object_kind note and noteable_type MergeRequest. A note on the diff (a DiffNote)
// carries position: the file (new_path, or old_path for a removed line) and the line, or
// line_range for several lines; discussion_id names its thread.
import { type Headers, header } from './headers.ts';
import { capText, positiveLine, type ReadReviewComment, skipComment } from './review-comment-event.ts';

// biome-ignore lint/suspicious/noExplicitAny: GitLab publishes no payload types; every field read is converted with String() or checked
type Json = Record<string, any>;

/** The comment a GitLab delivery tells of; null when the event is not a Note Hook. */
export function readGitLabComment(headers: Headers, payload: unknown): ReadReviewComment | null {
  if (header(headers, 'x-gitlab-event') !== 'Note Hook') return null;
  const deliveryId = header(headers, 'idempotency-key') ?? header(headers, 'x-gitlab-event-uuid');
  const body = (payload ?? {}) as Json;
  const note = (body.object_attributes ?? {}) as Json;
  if (body.object_kind !== 'note' || note.noteable_type !== 'MergeRequest') {
    return skipComment(
      deliveryId,
      `a note on a ${String(note.noteable_type ?? 'thing')}, not on a merge request`,
    );
  }
  if (note.action !== undefined && note.action !== 'create') {
    return skipComment(deliveryId, `note ${String(note.action)}`);
  }
  const mr = (body.merge_request ?? {}) as Json;
  const position = (note.position ?? null) as Json | null;
  const range = (position?.line_range ?? null) as Json | null;
  // A line in the new version when it has one there, else (a removed line) in the old one.
  const onNew = position !== null && (position.new_line != null || position.old_line == null);
  const lineOf = (point: Json | null | undefined) =>
    positiveLine(onNew ? point?.new_line : point?.old_line) ?? null;
  const endLine = position === null ? null : (lineOf(range?.end) ?? lineOf(position));
  const startLine = position === null ? null : (lineOf(range?.start) ?? endLine);
  const path =
    position === null ? null : String((onNew ? position.new_path : position.old_path) ?? '') || null;
  return {
    deliveryId,
    ignored: null,
    comment: {
      type: 'review_comment',
      host: 'gitlab',
      kind: path === null ? 'comment' : 'review_comment',
      commentKey: `note:${String(note.id)}`,
      threadKey: note.discussion_id ? `discussion:${String(note.discussion_id)}` : `note:${String(note.id)}`,
      repository: String(body.project?.path_with_namespace ?? ''),
      pullNumber: typeof mr.iid === 'number' ? mr.iid : null,
      pullUrl: String(mr.url ?? ''),
      headBranch: typeof mr.source_branch === 'string' ? mr.source_branch : null,
      author: String(body.user?.username ?? ''),
      viaAppId: null,
      body: capText(note.note),
      url: String(note.url ?? ''),
      path,
      startLine,
      endLine,
      side: path === null ? null : onNew ? 'new' : 'old',
      diffHunk: '',
    },
  };
}
