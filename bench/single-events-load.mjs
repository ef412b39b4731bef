// Load generator for the single-event part of usage.bench.ts. It runs as its own process so the
// load and the server under test do not share one event loop (the numbers would measure both).
// Input: JSON in argv[2]; output: one JSON line with the figures.
import process from 'node:process';
import autocannon from 'autocannon';

const { url, connections, durationS, headers, customers } = JSON.parse(process.argv[2]);
let counter = 0;
const result = await autocannon({
  url,
  connections,
  duration: durationS,
  requests: [
    {
      method: 'POST',
      headers,
      setupRequest: (req) => ({
        ...req,
        body: JSON.stringify({ idempotency_key: `single-${++counter}`, code: 'bench', customer_id: customers[counter % customers.length], properties: { bytes: '1', region: 'eu' } }),
      }),
    },
  ],
});
process.stdout.write(`${JSON.stringify({ requests: { average: result.requests.average }, latency: { p50: result.latency.p50, p99: result.latency.p99 }, non2xx: result.non2xx, errors: result.errors })}\n`);
