import { describe, expect, it } from 'vitest';
import { useHarness } from '../harness/app.js';

const harness = useHarness();

const ingest = (events: unknown[], key?: string) => harness().request('POST', '/api/v1/events/ingest', { body: { events }, key });
const ev = (id: string, customerId: string, timestamp = '2026-03-15T11:00:00Z', code = 'api_call') => ({ event_id: id, code, customer_id: customerId, timestamp, properties: { region: 'eu' } });
const list = (query = '', key?: string | null) => harness().request('GET', `/api/v1/events${query}`, { key });
const ids = (body: { data: { event_id: string }[] }) => body.data.map((e) => e.event_id);

describe('GET /api/v1/events', () => {
  it('lists the stored events newest ingested first, with the customer they resolve to, paged by cursor', async () => {
    const h = harness();
    const customer = (await h.request('POST', '/api/v1/customers', { body: { name: 'Acme', currency: 'EUR', alias: 'crm-42' } })).json();
    expect((await ingest([ev('a-1', 'crm-42', '2026-03-15T09:00:00Z'), ev('a-2', 'crm-99')])).statusCode).toBe(200);
    expect((await ingest([ev('b-1', customer.id, '2026-03-14T23:00:00Z', 'storage'), ev('b-2', 'crm-42')])).statusCode).toBe(200);
    // another tenant's events are never listed
    expect((await ingest([ev('other-1', 'crm-42')], h.other.apiKey)).statusCode).toBe(200);

    const first = await list();
    expect(first.statusCode, first.body).toBe(200);
    const body = first.json();
    // the later batch first; inside a batch, by event id (descending)
    expect(ids(body)).toEqual(['b-2', 'b-1', 'a-2', 'a-1']);
    expect(body.next_cursor).toBeNull();
    expect(body.data[0]).toEqual({
      event_id: 'b-2', code: 'api_call', customer_ref: customer.id, customer_id: customer.id,
      timestamp: '2026-03-15T11:00:00.000Z', properties: { region: 'eu' }, ingested_at: '2026-03-15T12:00:00.000Z',
    });
    expect(body.data[2]).toMatchObject({ event_id: 'a-2', customer_ref: 'crm-99', customer_id: null });

    // pages of 3 then 1, no overlap
    const p1 = (await list('?limit=3')).json();
    expect(ids(p1)).toEqual(['b-2', 'b-1', 'a-2']);
    expect(typeof p1.next_cursor).toBe('string');
    const p2 = (await list(`?limit=3&cursor=${p1.next_cursor}`)).json();
    expect(ids(p2)).toEqual(['a-1']);
    expect(p2.next_cursor).toBeNull();

    // filters: customer by alias or id (events under either), an unresolved alias, code, timestamp window
    expect(ids((await list('?customer_id=crm-42')).json())).toEqual(['b-2', 'b-1', 'a-1']);
    expect(ids((await list(`?customer_id=${customer.id}&code=api_call`)).json())).toEqual(['b-2', 'a-1']);
    expect(ids((await list('?customer_id=crm-99')).json())).toEqual(['a-2']);
    expect(ids((await list('?from=2026-03-15T00:00:00Z&to=2026-03-15T10:00:00Z')).json())).toEqual(['a-1']);

    const other = (await list('', h.other.apiKey)).json();
    expect(ids(other)).toEqual(['other-1']);
    expect(other.data[0].customer_id).toBeNull();
  });

  it('refuses a bad limit, cursor or window with a 400 naming it', async () => {
    for (const [query, field] of [['?limit=0', 'limit'], ['?limit=101', 'limit'], ['?limit=abc', 'limit'], ['?cursor=nope', 'cursor'], ['?from=yesterday', 'from'], ['?to=2026-03-01T00:00:00', 'to'],
      ['?from=2026-03-02T00:00:00Z&to=2026-03-01T00:00:00Z', 'to']] as const) {
      const res = await list(query);
      expect(res.statusCode, query).toBe(400);
      expect(res.json().message, query).toContain(field);
    }
    expect((await list('', null)).statusCode).toBe(401);
  });
});
