import { describe, expect, it } from 'vitest';
import { useHarness } from '../harness/app.js';

const harness = useHarness();

const ingest = (events: unknown[], key?: string) => harness().request('POST', '/api/v1/events/ingest', { body: { events, allow_partial_failures: true }, key });
const ev = (id: string, customerId: string, timestamp = '2026-03-15T11:00:00Z') => ({ event_id: id, code: 'api_call', customer_id: customerId, timestamp });
const list = (query = '', key?: string | null) => harness().request('GET', `/api/v1/events/unresolved-customers${query}`, { key });

describe('GET /api/v1/events/unresolved-customers', () => {
  it('lists the aliases events name but no customer has, with their event counts, paged, until a customer takes one', async () => {
    const h = harness();
    const first = await ingest([ev('u1-1', 'crm-7'), ev('u1-2', 'crm-7', '2026-03-15T09:00:00Z'), ev('u1-3', 'crm-8'), ev('u1-4', 'crm-7')]);
    expect(first.json()).toMatchObject({ ingested: 4, unknown_customer_events: 4 });
    // a retried event is not counted again; another batch adds to the count
    expect((await ingest([ev('u1-1', 'crm-7'), ev('u1-5', 'crm-9'), ev('u1-6', 'crm-7')])).json()).toMatchObject({ ingested: 2, duplicates: 1, unknown_customer_events: 2 });

    const page = await list();
    expect(page.statusCode, page.body).toBe(200);
    expect(page.json()).toEqual({
      data: [
        { customer_ref: 'crm-7', event_count: 4, first_event_at: '2026-03-15T09:00:00.000Z', last_event_at: '2026-03-15T11:00:00.000Z', last_ingested_at: '2026-03-15T12:00:00.000Z' },
        { customer_ref: 'crm-8', event_count: 1, first_event_at: '2026-03-15T11:00:00.000Z', last_event_at: '2026-03-15T11:00:00.000Z', last_ingested_at: '2026-03-15T12:00:00.000Z' },
        { customer_ref: 'crm-9', event_count: 1, first_event_at: '2026-03-15T11:00:00.000Z', last_event_at: '2026-03-15T11:00:00.000Z', last_ingested_at: '2026-03-15T12:00:00.000Z' },
      ],
      pagination_meta: { page: 0, per_page: 10, total_items: 3, total_pages: 1 },
    });
    const second = (await list('?per_page=2&page=1&order_by=customer_ref.desc')).json();
    expect(second.data.map((r: { customer_ref: string }) => r.customer_ref)).toEqual(['crm-7']);
    expect(second.pagination_meta).toEqual({ page: 1, per_page: 2, total_items: 3, total_pages: 2 });

    // a customer takes crm-8: its event is that customer's now, and it leaves the list
    const customer = await h.request('POST', '/api/v1/customers', { body: { name: 'Eight', currency: 'EUR', alias: 'crm-8' } });
    expect(customer.statusCode, customer.body).toBe(201);
    expect((await list()).json().data.map((r: { customer_ref: string }) => r.customer_ref)).toEqual(['crm-7', 'crm-9']);
    // an event for the alias now resolves to the customer, and is not counted as unknown
    expect((await ingest([ev('u1-7', 'crm-8')])).json()).toMatchObject({ ingested: 1, unknown_customer_events: 0 });
    expect((await list('', h.other.apiKey)).json().pagination_meta.total_items).toBe(0);
  });

  it('names at most five aliases in the warning, and refuses a bad order_by or page size with a 400 naming it', async () => {
    const res = await ingest(Array.from({ length: 7 }, (_, i) => ev(`u2-${i}`, `typo-${i}`)));
    expect(res.json().warnings).toEqual([
      "7 events name a customer alias no customer has yet ('typo-0', 'typo-1', 'typo-2', 'typo-3', 'typo-4', and 2 more): kept, and counted once a customer takes that alias; look for a typo with GET /api/v1/events/unresolved-customers",
    ]);
    const badOrder = await list('?order_by=alias.asc');
    expect(badOrder.statusCode).toBe(400);
    expect(badOrder.json().message).toContain('order_by');
    expect((await list('?per_page=101')).statusCode).toBe(400);
    expect((await list('', null)).statusCode).toBe(401);
  });
});
