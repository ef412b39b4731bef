-- Test clocks (docs/test-clocks.md): a sandbox tenant's simulated time. A customer created on a
-- test clock, and everything of that customer (subscriptions, invoices, usage), runs on the
-- clock's frozen_time instead of the service clock; the periodic runs leave them alone.
CREATE TABLE test_clocks (
  id text PRIMARY KEY,
  tenant_id text NOT NULL REFERENCES tenants(id),
  name text,
  -- the time the clock's objects are at; while ADVANCING it moves step by step towards the target
  frozen_time timestamptz NOT NULL,
  status text NOT NULL CHECK (status IN ('READY', 'ADVANCING')),
  -- where an advance is going; set exactly while ADVANCING
  target_frozen_time timestamptz,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  UNIQUE (tenant_id, id),
  CHECK ((status = 'ADVANCING') = (target_frozen_time IS NOT NULL)),
  CHECK (target_frozen_time IS NULL OR target_frozen_time > frozen_time)
);
CREATE INDEX test_clocks_tenant_created_idx ON test_clocks (tenant_id, created_at);

-- Set at creation only; a customer on no test clock runs on the service clock.
ALTER TABLE customers ADD COLUMN test_clock_id text;
ALTER TABLE customers ADD CONSTRAINT customers_test_clock_fkey FOREIGN KEY (tenant_id, test_clock_id) REFERENCES test_clocks (tenant_id, id);
-- Small (sandbox customers on a clock only): the periodic runs skip these, advances select them.
CREATE INDEX customers_test_clock_idx ON customers (test_clock_id, id) WHERE test_clock_id IS NOT NULL;
