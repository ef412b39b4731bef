// docs/quickstart.md written with the SDK: catalog, customer, usage, a subscription that
// started two months ago, its invoices, a PDF and a portal link. Run it against a service:
//   BASE_URL=http://127.0.0.1:8080 API_KEY=sk_sandbox_… npx tsx sdk/examples/quickstart.ts
// (test/docs/quickstart-sdk.test.ts runs it against a real service on every test run.)
import { writeFile } from 'node:fs/promises';
import { Decimal } from 'decimal.js';
import {
  createApiKeyClient, createClient, createCustomer, createMetric, createPlan, createPortalToken, createProduct, createProductFamily,
  createSubscription, downloadInvoicePdf, getCustomerUsage, getInvoiceById, ingestEvents, listInvoices, listInvoicingEntities,
  listPortalInvoices, updateInvoicingEntity,
} from '../src/index.js';

/** The 1st of the month `monthsBack` months before `today`'s, as YYYY-MM-DD. */
function firstOfMonth(today: Date, monthsBack: number): string {
  return new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth() - monthsBack, 1)).toISOString().slice(0, 10);
}

export async function quickstart(baseUrl: string, apiKey: string, log: (line: string) => void = console.log) {
  // Every call throws a BillingApiError (status, code, message) if the API refuses it.
  const client = createApiKeyClient({ baseUrl, apiKey });
  const today = new Date();
  const START_DATE = firstOfMonth(today, 2); // the 1st of the month before last
  const LAST_MONTH = firstOfMonth(today, 1);

  // 3. Catalog: a product family, a metric, two products and a plan (ids are typed strings).
  await createProductFamily({ client, body: { name: 'SaaS', alias: 'saas' } });
  const { data: metric } = await createMetric({
    client, body: { name: 'API requests', code: 'api_requests', aggregation_type: 'SUM', aggregation_key: 'requests', product_family_id: 'saas' },
  });
  const { data: platform } = await createProduct({ client, body: { name: 'Platform', product_family_id: 'saas', fee_structure: { type: 'RATE' } } });
  const { data: requests } = await createProduct({
    client, body: { name: 'API requests', product_family_id: 'saas', fee_structure: { type: 'USAGE', metric_id: metric.id, model: 'PER_UNIT' } },
  });
  // Money is a decimal string: "49.00" a month, "0.002" per request.
  const { data: plan } = await createPlan({
    client,
    body: {
      name: 'Pro', product_family_id: 'saas', currency: 'USD', status: 'ACTIVE',
      components: [
        { name: 'Platform fee', product_id: platform.id, fee: { rates: [{ term: 'MONTHLY', price: '49.00' }] } },
        { name: 'API requests', product_id: requests.id, fee: { pricing: { type: 'PER_UNIT', rate: '0.002' } } },
      ],
    },
  });

  // 4. The seller: finalize new invoices at once (grace period of 0 hours).
  const { data: entities } = await listInvoicingEntities({ client });
  await updateInvoicingEntity({ client, path: { invoicing_entity_id: entities.data[0]!.id }, body: { legal_name: 'Example Software Inc.', grace_period_hours: 0 } });

  // 5. and 6. A customer with an alias, and usage of the month before last under that alias.
  await createCustomer({ client, body: { name: 'Acme Corp', alias: 'acme', currency: 'USD' } });
  const { data: ingested } = await ingestEvents({
    client,
    body: {
      allow_backfilling: true,
      events: [
        { event_id: 'req-1', code: 'api_requests', customer_id: 'acme', timestamp: `${START_DATE}T09:00:00Z`, properties: { requests: '5000' } },
        { event_id: 'req-2', code: 'api_requests', customer_id: 'acme', timestamp: `${START_DATE}T10:00:00Z`, properties: { requests: '4000' } },
        { event_id: 'req-3', code: 'api_requests', customer_id: 'acme', timestamp: `${START_DATE}T11:00:00Z`, properties: { requests: '3500' } },
      ],
    },
  });
  log(`ingested ${ingested.ingested} events`);
  const { data: usage } = await getCustomerUsage({ client, path: { customer_id: 'acme' }, query: { start_date: START_DATE, end_date: LAST_MONTH } });
  log(`usage of ${START_DATE}: ${usage.usage[0]!.total_value} requests`);

  // 7. A subscription that started two months ago.
  const { data: subscription } = await createSubscription({ client, body: { customer_id_or_alias: 'acme', plan_id: plan.id, start_date: START_DATE } });
  log(`subscription ${subscription.id}, MRR ${subscription.mrr}`);

  // 8. Its invoices, one per month: the worker's billing run makes and finalizes them within a minute.
  const invoicesOfAcme = async () => (await listInvoices({ client, query: { customer_id: 'acme', order_by: 'invoice_date.asc' } })).data.data;
  let invoices = await invoicesOfAcme();
  for (let waited = 0; (invoices.length < 3 || invoices.some((i) => i.status === 'DRAFT')) && waited < 120; waited++) {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    invoices = await invoicesOfAcme();
  }
  for (const invoice of invoices) log(`${invoice.invoice_number} ${invoice.invoice_date} ${invoice.status} ${invoice.total} ${invoice.currency}`);
  // Sum money with a decimal library, never with JavaScript numbers.
  const due = invoices.reduce((sum, invoice) => sum.plus(invoice.amount_due), new Decimal(0));
  log(`amount due: ${due.toFixed(2)} USD`);

  const { data: invoice } = await getInvoiceById({ client, path: { invoice_id: invoices[1]!.id } });
  for (const line of invoice.line_items) log(`  ${line.name}: ${line.amount_total}`);

  // 9. The invoice PDF, a Blob (the program below saves it as invoice.pdf).
  const { data: pdf } = await downloadInvoicePdf({ client, path: { invoice_id: invoice.id } });

  // 10. A portal link for the customer, and what the portal shows them (no API key: the token).
  const { data: portal } = await createPortalToken({ client, path: { id_or_alias: 'acme' }, body: {} });
  log(`portal: ${portal.portal_url}`);
  const { data: seen } = await listPortalInvoices({ client: createClient({ baseUrl }), headers: { 'x-portal-token': portal.token }, throwOnError: true });

  return { metric, plan, subscription, invoices, invoice, due: due.toFixed(2), pdf, portalInvoices: seen.data };
}

// Run as a program: BASE_URL and API_KEY from the environment.
if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  const { BASE_URL, API_KEY } = process.env;
  if (!BASE_URL || !API_KEY) throw new Error('set BASE_URL (http://127.0.0.1:8080) and API_KEY (the sandbox key printed at first start)');
  const { pdf } = await quickstart(BASE_URL, API_KEY);
  await writeFile('invoice.pdf', Buffer.from(await pdf.arrayBuffer()));
}
