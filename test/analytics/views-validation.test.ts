// Every bad query parameter of the page-view export answers 400 invalid_parameter naming the
// parameter, and never 500; good edge values are accepted.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { App } from '../../src/http/context.ts';
import { bearer, createTestApp, seedProject } from '../helpers/app.ts';
import { forEachBackend } from '../helpers/databases.ts';
import { recordPageViews } from '../helpers/seed-views.ts';

/** [parameter at fault, raw query string as sent on the wire] */
const BAD: [string, string][] = [
  ['limit', 'limit=0'],
  ['limit', 'limit=251'],
  ['limit', 'limit=2.5'],
  ['limit', 'limit=abc'],
  ['limit', 'limit='],
  ['limit', 'limit=1e2'],
  ['limit', 'limit=1.0'],
  ['limit', 'limit=0x10'],
  ['limit', 'limit=%205'],
  ['limit', 'limit=5%20'],
  ['limit', 'limit=%2B5'],
  ['limit', 'limit=-1'],
  ['limit', 'limit=true'],
  ['limit', 'limit=1&limit=2'],
  ['limit', 'limit=99999999999999999999'],
  ['offset', 'offset=-1'],
  ['offset', 'offset=1.0'],
  ['offset', 'offset=abc'],
  ['offset', 'offset='],
  ['offset', 'offset=1e2'],
  ['offset', 'offset=0&offset=7'],
  ['offset', 'offset=99999999999999999999'],
  ['dateFrom', 'dateFrom=2025-13-01'],
  ['dateFrom', 'dateFrom=2025-02-30'],
  ['dateFrom', 'dateFrom=2025-01-01T25:00:00Z'],
  ['dateFrom', 'dateFrom=yesterday'],
  ['dateFrom', 'dateFrom=2025-1-1'],
  ['dateFrom', 'dateFrom='],
  ['dateFrom', 'dateFrom=0000-01-01'],
  ['dateFrom', 'dateFrom=2025-01-01&dateFrom=2025-02-01'],
  ['dateTo', 'dateTo=yesterday'],
  ['dateTo', 'dateTo=2025-13-01'],
  ['dateTo', 'dateTo=2025-04-31'],
  ['dateTo', 'dateTo=2025-01-01T10:00:00%2B25:00'],
  ['dateTo', 'dateTo=1735689600'],
  ['dateTo', 'dateTo=2025-01-01&dateTo=2025-02-01'],
  // A good parameter beside a bad one: the bad one is named.
  ['dateTo', 'limit=10&offset=0&dateFrom=2025-01-01&dateTo=tomorrow'],
];

await forEachBackend('page-view export validation', ({ db }) => {
  let app: App;
  let seeded: Awaited<ReturnType<typeof seedProject>>;
  before(async () => {
    app = await createTestApp(db());
    seeded = await seedProject(db());
    await recordPageViews(db(), [
      {
        projectId: seeded.project.id,
        hour: new Date('2025-01-01T10:00:00Z'),
        path: '/',
        trafficClass: 'human',
        views: 1,
      },
    ]);
  });
  after(() => app.close());

  const get = (query: string) =>
    app.inject({
      method: 'GET',
      url: `/v1/analytics/${seeded.project.id}/views?${query}`,
      headers: bearer(seeded.readKey),
    });

  test('each bad parameter → 400 invalid_parameter naming it', async () => {
    for (const [name, query] of BAD) {
      const res = await get(query);
      assert.equal(res.statusCode, 400, `${query}: ${res.body}`);
      const body = res.json();
      assert.equal(body.code, 'invalid_parameter', query);
      assert.equal(body.details[0].name, name, query);
      assert.equal(body.details[0].location, 'query', query);
      assert.ok(body.error.includes(`"${name}"`), `${query}: the message names ${name}: ${body.error}`);
      assert.match(body.requestId, /^req_/);
    }
  });

  test('a bad date says which formats are accepted and why the value is not one', async () => {
    const body = (await get('dateTo=2025-02-30')).json();
    assert.match(
      body.error,
      /^Query parameter "dateTo" must be a date YYYY-MM-DD \(UTC midnight\) or an ISO 8601 date-time/,
    );
    assert.match(body.error, /got "2025-02-30" \(February 2025 has 28 days\)\.$/);
  });

  test('good edge values are accepted', async () => {
    for (const query of [
      'limit=1',
      'limit=250',
      'limit=0010',
      'offset=0',
      'offset=9007199254740991',
      'dateFrom=2025-01-01&dateTo=2025-01-01T00:00:00.000000001Z',
      'unknown=ignored',
      '',
    ]) {
      const res = await get(query);
      assert.equal(res.statusCode, 200, `${query}: ${res.body}`);
    }
  });

  test('auth comes before validation: a bad parameter with no key is 401', async () => {
    const res = await app.inject({ method: 'GET', url: `/v1/analytics/${seeded.project.id}/views?limit=0` });
    assert.equal(res.statusCode, 401);
  });
});
