// Unit tests of the export's date parsing and hour rounding (pure logic, no database).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import {
  ceilToHour,
  compareInstants,
  floorToHour,
  type Instant,
  isoFromEpochSeconds,
  parseDateBound,
} from '../../src/modules/analytics/date-bounds.ts';

const seconds = (iso: string) => Date.parse(iso) / 1000;

function parsed(text: string): Instant {
  const result = parseDateBound(text);
  assert.ok(result.ok, `${JSON.stringify(text)} should parse: ${result.ok ? '' : result.reason}`);
  return result.instant;
}

function refused(text: string): string {
  const result = parseDateBound(text);
  assert.ok(!result.ok, `${JSON.stringify(text)} should be refused`);
  return result.reason;
}

describe('parseDateBound', () => {
  test('YYYY-MM-DD is UTC midnight', () => {
    assert.deepEqual(parsed('2025-01-31'), { epochSeconds: seconds('2025-01-31T00:00:00Z'), nanos: 0 });
    assert.deepEqual(parsed('1969-12-31'), { epochSeconds: -86400, nanos: 0 });
  });

  test('date-times with Z, with an offset, and without one (read as UTC)', () => {
    const at = seconds('2025-01-31T14:00:00Z');
    for (const text of [
      '2025-01-31T14:00:00Z',
      '2025-01-31t14:00:00z',
      '2025-01-31T14:00Z',
      '2025-01-31T14:00:00',
      '2025-01-31T14:00',
      '2025-01-31T16:00:00+02:00',
      '2025-01-31T16:00:00+0200',
      '2025-01-31T16:00:00+02',
      '2025-01-31T08:30:00-05:30',
      '2025-01-31T14:00:00+00:00',
      '2025-01-31T14:00:00-00:00',
      '2025-02-01T03:45:00+13:45',
    ]) {
      assert.deepEqual(parsed(text), { epochSeconds: at, nanos: 0 }, text);
    }
  });

  test('an offset crosses the date line in both directions', () => {
    assert.equal(parsed('2025-01-01T01:00:00+02:00').epochSeconds, seconds('2024-12-31T23:00:00Z'));
    assert.equal(parsed('2024-12-31T20:00:00-05:00').epochSeconds, seconds('2025-01-01T01:00:00Z'));
  });

  test('a space where the offset sign belongs is a "+" decoded from a query string', () => {
    assert.deepEqual(parsed('2025-01-31T16:00:00 02:00'), parsed('2025-01-31T16:00:00+02:00'));
  });

  test('fractions of a second keep up to nanosecond precision', () => {
    assert.equal(parsed('2025-01-31T14:00:00.5Z').nanos, 500_000_000);
    assert.equal(parsed('2025-01-31T14:00:00,25Z').nanos, 250_000_000);
    assert.equal(parsed('2025-01-31T14:00:00.000000001Z').nanos, 1);
    assert.equal(parsed('2025-01-31T14:00:00.123456789+01:00').nanos, 123_456_789);
  });

  test('leap years follow the Gregorian rule', () => {
    parsed('2024-02-29');
    parsed('2000-02-29');
    assert.equal(refused('2025-02-29'), 'February 2025 has 28 days');
    assert.equal(refused('1900-02-29'), 'February 1900 has 28 days');
    assert.equal(refused('2024-02-30'), 'February 2024 has 29 days');
  });

  test('impossible dates and times say what is wrong', () => {
    assert.equal(refused('2025-13-01'), 'month 13 does not exist');
    assert.equal(refused('2025-00-10'), 'month 00 does not exist');
    assert.equal(refused('2025-04-31'), 'April 2025 has 30 days');
    assert.equal(refused('2025-01-00'), 'January 2025 has 31 days');
    assert.equal(refused('2025-01-01T25:00:00Z'), 'the hour must be 00 to 23');
    assert.equal(refused('2025-01-01T24:00:00Z'), 'the hour must be 00 to 23');
    assert.equal(refused('2025-01-01T10:60:00Z'), 'the minutes must be 00 to 59');
    assert.equal(refused('2025-01-01T10:00:60Z'), 'the seconds must be 00 to 59');
    assert.equal(refused('2025-01-01T10:00:00+24:00'), 'the offset must be -23:59 to +23:59');
    assert.equal(refused('2025-01-01T10:00:00+02:60'), 'the offset must be -23:59 to +23:59');
  });

  test('anything else is not a recognised format', () => {
    for (const text of [
      '',
      'yesterday',
      'now',
      '2025-1-1',
      '2025-01-1',
      '20250101',
      '2025/01/01',
      ' 2025-01-01',
      '2025-01-01 ',
      '2025-01-01T',
      '2025-01-01T10',
      '2025-01-01T10Z',
      '2025-01-01 10:00:00Z',
      '2025-01-01T10:00:00.Z',
      '2025-01-01T10:00:00.1234567890Z',
      '2025-01-01T10:00:00+2:00',
      '2025-01-01T10:00:00+02:0',
      '2025-01-01T10:00:00ZZ',
      '2025-01-01T10:00:00Z+02:00',
      '10000-01-01',
      '-2025-01-01',
      '２０２５-01-01',
      '1735689600',
    ]) {
      assert.equal(refused(text), 'not a recognised format', JSON.stringify(text));
    }
  });

  test('instants must stay within the years 0001 to 9999 in UTC', () => {
    parsed('0001-01-01');
    parsed('9999-12-31');
    const outside = 'in UTC it must be from 0001-01-01 to 9999-12-31T00:00:00Z';
    assert.equal(refused('0000-12-31'), outside);
    assert.equal(refused('0001-01-01T00:30:00+01:00'), outside);
    assert.equal(refused('9999-12-31T00:00:00.000000001Z'), outside);
    assert.equal(refused('9999-12-31T23:00:00Z'), outside);
  });

  test('any UTC instant written with any offset parses back to itself (property)', () => {
    const minute = 60_000;
    fc.assert(
      fc.property(
        fc.integer({ min: Date.parse('1900-01-02T00:00:00Z'), max: Date.parse('2200-12-30T00:00:00Z') }),
        fc.integer({ min: -(23 * 60 + 59), max: 23 * 60 + 59 }),
        (utcMs, offsetMinutes) => {
          const local = new Date(utcMs + offsetMinutes * minute).toISOString().slice(0, 23);
          const sign = offsetMinutes < 0 ? '-' : '+';
          const abs = Math.abs(offsetMinutes);
          const offset = `${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
          const instant = parsed(`${local}${offset}`);
          assert.equal(instant.epochSeconds * 1000 + instant.nanos / 1e6, utcMs);
        },
      ),
    );
  });
});

describe('hour rounding', () => {
  test('a bound on the hour stays; one inside an hour widens outward', () => {
    const onHour = parsed('2025-03-10T14:00:00Z');
    assert.equal(floorToHour(onHour), seconds('2025-03-10T14:00:00Z'));
    assert.equal(ceilToHour(onHour), seconds('2025-03-10T14:00:00Z'));
    const inside = parsed('2025-03-10T14:59:59Z');
    assert.equal(floorToHour(inside), seconds('2025-03-10T14:00:00Z'));
    assert.equal(ceilToHour(inside), seconds('2025-03-10T15:00:00Z'));
  });

  test('one nanosecond past the hour rounds up to the next hour', () => {
    const justAfter = parsed('2025-03-10T14:00:00.000000001Z');
    assert.equal(floorToHour(justAfter), seconds('2025-03-10T14:00:00Z'));
    assert.equal(ceilToHour(justAfter), seconds('2025-03-10T15:00:00Z'));
  });

  test('half-hour offsets land inside a UTC hour', () => {
    const bound = parsed('2025-03-10T08:00:00-05:30'); // 13:30Z
    assert.equal(isoFromEpochSeconds(floorToHour(bound)), '2025-03-10T13:00:00.000Z');
    assert.equal(isoFromEpochSeconds(ceilToHour(bound)), '2025-03-10T14:00:00.000Z');
  });

  test('before 1970 (negative epoch seconds) rounds the same way', () => {
    const bound = parsed('1969-07-20T20:17:40Z');
    assert.equal(isoFromEpochSeconds(floorToHour(bound)), '1969-07-20T20:00:00.000Z');
    assert.equal(isoFromEpochSeconds(ceilToHour(bound)), '1969-07-20T21:00:00.000Z');
  });

  test('floor <= instant <= ceil, both on the hour, at most an hour apart (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -62_000_000_000, max: 253_000_000_000 }),
        fc.integer({ min: 0, max: 999_999_999 }),
        (epochSeconds, nanos) => {
          const instant = { epochSeconds, nanos };
          const floor = floorToHour(instant);
          const ceil = ceilToHour(instant);
          assert.ok(floor % 3600 === 0 && ceil % 3600 === 0, 'both on the hour');
          assert.ok(compareInstants({ epochSeconds: floor, nanos: 0 }, instant) <= 0);
          assert.ok(compareInstants({ epochSeconds: ceil, nanos: 0 }, instant) >= 0);
          assert.ok(ceil - floor === 0 || ceil - floor === 3600);
          assert.equal(ceil === floor, epochSeconds % 3600 === 0 && nanos === 0);
        },
      ),
    );
  });
});

describe('compareInstants', () => {
  test('orders by seconds, then by the fraction', () => {
    const a = parsed('2025-01-01T00:00:00.1Z');
    const b = parsed('2025-01-01T00:00:00.2Z');
    const c = parsed('2025-01-01T00:00:01Z');
    assert.ok(compareInstants(a, b) < 0);
    assert.ok(compareInstants(b, a) > 0);
    assert.ok(compareInstants(b, c) < 0);
    assert.equal(compareInstants(parsed('2025-01-01T02:00:00+02:00'), parsed('2025-01-01')), 0);
  });
});
