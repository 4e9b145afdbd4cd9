// The one small query interface both storage engines implement. Domain modules write plain
// PostgreSQL and run it through this; they never see which engine is underneath.

export interface Queryable {
  /** Runs one statement with $1.. parameters; int8 values come back as numbers, timestamps as Dates. */
  query<Row = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<Row[]>;
  /** Runs a script of several statements without parameters (migrations). */
  exec(sql: string): Promise<void>;
}

export interface Database extends Queryable {
  readonly kind: 'pglite' | 'postgres';
  /**
   * Runs fn in one transaction, committed when it resolves and rolled back when it throws.
   * On PGlite this is the only safe way to group statements: it is a single session, so a BEGIN
   * sent through query() would also capture other callers' statements.
   */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /**
   * Calls onNotify for each NOTIFY on channel (PostgreSQL LISTEN; in-process on PGlite).
   * Resolves to a function that stops listening.
   */
  listen(
    channel: string,
    onNotify: (payload: string) => void,
    options?: ListenOptions,
  ): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

export interface ListenOptions {
  /**
   * Hears true each time the LISTEN is in place (at first and after each reconnection) and false
   * each time it is lost or stopped: notifications sent in between are never delivered, so a
   * listener that keeps state from them (the API key cache) must not trust it meanwhile.
   */
  onConnection?: (connected: boolean) => void;
  /**
   * The LISTEN (its connection and its reconnection timer) never keeps the process alive: for a
   * listener that only saves work (the API key cache), so a process that forgot to close it
   * still exits.
   */
  background?: boolean;
}
