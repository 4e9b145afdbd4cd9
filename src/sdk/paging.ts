// Walking an offset-paged export (views, agents): ask for the first page, then offset += limit
// while hasMore, as the contract says. Also as CSV: every page with Accept: text/csv, joined under
// one header.
import type { RequestSpec, Transport } from './transport.ts';

export interface PagingOptions {
  dateFrom?: string;
  dateTo?: string;
  /** Rows per request, 1 to 250 (default 250, the most the server gives). */
  pageSize?: number;
  signal?: AbortSignal;
}

export interface PageRequest {
  dateFrom?: string;
  dateTo?: string;
  limit: number;
  offset: number;
  signal?: AbortSignal;
}

const DEFAULT_PAGE_SIZE = 250;

function pageRequest(options: PagingOptions, limit: number, offset: number): PageRequest {
  return {
    limit,
    offset,
    ...(options.dateFrom === undefined ? {} : { dateFrom: options.dateFrom }),
    ...(options.dateTo === undefined ? {} : { dateTo: options.dateTo }),
    ...(options.signal ? { signal: options.signal } : {}),
  };
}

/** Every page, in order. */
export async function* offsetPages<P extends { hasMore: boolean }>(
  fetchPage: (page: PageRequest) => Promise<P>,
  options: PagingOptions,
  rowsOf: (page: P) => number,
): AsyncGenerator<P, void, undefined> {
  const limit = options.pageSize ?? DEFAULT_PAGE_SIZE;
  for (let offset = 0; ; offset += limit) {
    const page = await fetchPage(pageRequest(options, limit, offset));
    yield page;
    // An empty page that still claims more would loop for ever: stop there.
    if (!page.hasMore || rowsOf(page) === 0) return;
  }
}

export interface CsvPage {
  csv: string;
  rows: number;
  hasMore: boolean;
}

/**
 * Every page as CSV (Accept: text/csv), joined under the first page's header; the next page
 * exists while the answer links to it (Link rel="next"). A server that answers JSON instead (one
 * without the CSV export) gets its pages written as CSV by fromJson, by the same rules.
 */
export async function csvPages<P>(
  transport: Transport,
  specFor: (page: PageRequest) => RequestSpec,
  options: PagingOptions,
  fromJson: (page: P) => CsvPage,
): Promise<string> {
  const limit = options.pageSize ?? DEFAULT_PAGE_SIZE;
  let out = '';
  for (let offset = 0; ; offset += limit) {
    const spec = specFor(pageRequest(options, limit, offset));
    const { response, text } = await transport.text({
      ...spec,
      headers: { accept: 'text/csv, application/json;q=0.5' },
    });
    let page: CsvPage;
    if ((response.headers.get('content-type') ?? '').toLowerCase().startsWith('text/csv')) {
      // Lines minus the header and the empty string after the last CRLF; only "none" matters.
      const rows = text.split('\r\n').length - 2;
      page = { csv: text, rows, hasMore: /rel="?next"?/.test(response.headers.get('link') ?? '') };
    } else {
      page = fromJson(transport.parseJson<P>(text, response, spec));
    }
    out += offset === 0 ? page.csv : page.csv.slice(page.csv.indexOf('\r\n') + 2);
    if (!page.hasMore || page.rows <= 0) return out;
  }
}
