// The logger the group committer and the staged-view merger report failures to. A file of its
// own because the merger is started by the committer and so cannot import the committer's file.

/** Where a failed commit is reported (the app's logger). */
export interface CommitLog {
  error(details: object, message: string): void;
}
