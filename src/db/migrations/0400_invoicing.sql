-- Invoicing: seller entities, stored documents (PDFs), invoices with lines, sub-lines and tax
-- breakdown, credit notes. Settled amounts are bigint minor units; rates and quantities numeric.
-- customer_id / subscription_id are plain text (no FK): invoices outlive and snapshot the
-- customer (customer_details) and must not depend on the order other modules' tables appear in.

CREATE TABLE invoicing_entities (
  id text PRIMARY KEY,
  tenant_id text NOT NULL REFERENCES tenants(id),
  is_default boolean NOT NULL DEFAULT false,
  legal_name text NOT NULL,
  address_line1 text,
  address_line2 text,
  city text,
  zip_code text,
  state text,
  country text NOT NULL CHECK (country ~ '^[A-Z]{2}$'),
  vat_number text,
  invoice_number_prefix text NOT NULL DEFAULT 'INV-',
  credit_note_number_prefix text NOT NULL DEFAULT 'CN-',
  -- gapless counters, consumed in the finalize transaction under the row lock
  next_invoice_number bigint NOT NULL DEFAULT 1 CHECK (next_invoice_number >= 1),
  next_credit_note_number bigint NOT NULL DEFAULT 1 CHECK (next_credit_note_number >= 1),
  net_terms integer NOT NULL DEFAULT 30 CHECK (net_terms >= 0),
  grace_period_hours integer NOT NULL DEFAULT 24 CHECK (grace_period_hours >= 0),
  e_invoicing_enabled boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE UNIQUE INDEX invoicing_entities_default_key ON invoicing_entities (tenant_id) WHERE is_default;

CREATE TABLE documents (
  id text PRIMARY KEY,
  tenant_id text NOT NULL REFERENCES tenants(id),
  kind text NOT NULL CHECK (kind IN ('INVOICE_PDF', 'CREDIT_NOTE_PDF')),
  object_id text NOT NULL,
  content_type text NOT NULL,
  sha256 text NOT NULL,
  content bytea NOT NULL,
  created_at timestamptz NOT NULL
);
CREATE UNIQUE INDEX documents_object_key ON documents (tenant_id, object_id, kind);

CREATE TABLE invoices (
  id text PRIMARY KEY,
  tenant_id text NOT NULL REFERENCES tenants(id),
  invoicing_entity_id text NOT NULL REFERENCES invoicing_entities(id),
  customer_id text NOT NULL,
  subscription_id text,
  invoice_type text NOT NULL CHECK (invoice_type IN ('RECURRING', 'ONE_OFF', 'ADJUSTMENT')),
  status text NOT NULL CHECK (status IN ('DRAFT', 'FINALIZED', 'VOID', 'UNCOLLECTIBLE')),
  payment_status text NOT NULL CHECK (payment_status IN ('UNPAID', 'PARTIALLY_PAID', 'PAID')),
  invoice_number text,
  currency text NOT NULL,
  invoice_date date NOT NULL,
  period_start date,
  period_end date,
  due_date date,
  net_terms integer NOT NULL CHECK (net_terms >= 0),
  subtotal_minor bigint NOT NULL,
  subtotal_recurring_minor bigint NOT NULL,
  discount_minor bigint NOT NULL,
  tax_minor bigint NOT NULL,
  total_minor bigint NOT NULL,
  applied_credits_minor bigint NOT NULL DEFAULT 0,
  amount_due_minor bigint NOT NULL,
  amount_paid_minor bigint NOT NULL DEFAULT 0,
  credit_carried_forward_minor bigint NOT NULL DEFAULT 0,
  tax_inclusive boolean NOT NULL DEFAULT false,
  customer_details jsonb NOT NULL,
  seller_details jsonb NOT NULL,
  coupons jsonb NOT NULL DEFAULT '[]',
  memo text,
  purchase_order text,
  reference text,
  plan_name text,
  -- when a draft finalizes by itself (invoice date + the entity's grace period); null = manual
  finalize_after timestamptz,
  pdf_document_id text REFERENCES documents(id),
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  finalized_at timestamptz,
  paid_at timestamptz,
  voided_at timestamptz,
  marked_as_uncollectible_at timestamptz,
  -- a draft can be voided (discarded) without ever taking a number
  CHECK (status IN ('DRAFT', 'VOID') OR invoice_number IS NOT NULL),
  CHECK ((period_start IS NULL) = (period_end IS NULL))
);
-- Never two invoices for one subscription period, whatever runs concurrently.
CREATE UNIQUE INDEX invoices_subscription_period_key ON invoices (tenant_id, subscription_id, period_start, period_end, invoice_type);
CREATE UNIQUE INDEX invoices_number_key ON invoices (tenant_id, invoicing_entity_id, invoice_number);
CREATE INDEX invoices_tenant_date_idx ON invoices (tenant_id, invoice_date DESC, id DESC);
CREATE INDEX invoices_tenant_customer_idx ON invoices (tenant_id, customer_id);
CREATE INDEX invoices_finalize_due_idx ON invoices (finalize_after) WHERE status = 'DRAFT' AND finalize_after IS NOT NULL;

CREATE TABLE invoice_lines (
  id text PRIMARY KEY,
  tenant_id text NOT NULL REFERENCES tenants(id),
  invoice_id text NOT NULL REFERENCES invoices(id) ON DELETE CASCADE,
  line_no integer NOT NULL,
  name text NOT NULL,
  description text,
  category text NOT NULL CHECK (category IN ('RECURRING', 'USAGE', 'ONE_TIME', 'PRORATION', 'COMMITMENT')),
  quantity numeric,
  unit_price numeric,
  start_date date NOT NULL,
  end_date date NOT NULL,
  amount_minor bigint NOT NULL,
  discount_minor bigint NOT NULL,
  taxable_minor bigint NOT NULL,
  tax_rate numeric NOT NULL,
  tax_treatment text NOT NULL,
  tax_country text,
  tax_minor bigint NOT NULL,
  total_minor bigint NOT NULL,
  metric_id text,
  CHECK (total_minor = taxable_minor + tax_minor),
  CHECK (taxable_minor = amount_minor - discount_minor),
  UNIQUE (invoice_id, line_no)
);
CREATE INDEX invoice_lines_invoice_idx ON invoice_lines (tenant_id, invoice_id);

CREATE TABLE invoice_sub_lines (
  id text PRIMARY KEY,
  tenant_id text NOT NULL REFERENCES tenants(id),
  invoice_line_id text NOT NULL REFERENCES invoice_lines(id) ON DELETE CASCADE,
  invoice_id text NOT NULL REFERENCES invoices(id) ON DELETE CASCADE,
  position integer NOT NULL,
  name text NOT NULL,
  quantity numeric NOT NULL,
  unit_price numeric NOT NULL,
  total_minor bigint NOT NULL,
  attributes jsonb,
  UNIQUE (invoice_line_id, position)
);
CREATE INDEX invoice_sub_lines_invoice_idx ON invoice_sub_lines (tenant_id, invoice_id);

CREATE TABLE invoice_tax_breakdown (
  tenant_id text NOT NULL REFERENCES tenants(id),
  invoice_id text NOT NULL REFERENCES invoices(id) ON DELETE CASCADE,
  position integer NOT NULL,
  name text NOT NULL,
  treatment text NOT NULL,
  tax_rate numeric NOT NULL,
  country text,
  taxable_minor bigint NOT NULL,
  tax_minor bigint NOT NULL,
  PRIMARY KEY (invoice_id, position)
);
CREATE INDEX invoice_tax_breakdown_tenant_idx ON invoice_tax_breakdown (tenant_id, invoice_id);

CREATE TABLE credit_notes (
  id text PRIMARY KEY,
  tenant_id text NOT NULL REFERENCES tenants(id),
  invoice_id text NOT NULL REFERENCES invoices(id),
  invoicing_entity_id text NOT NULL REFERENCES invoicing_entities(id),
  customer_id text NOT NULL,
  credit_note_number text,
  status text NOT NULL CHECK (status IN ('DRAFT', 'FINALIZED', 'VOIDED')),
  credit_type text NOT NULL CHECK (credit_type IN ('CREDIT_TO_BALANCE', 'REFUND')),
  reason text NOT NULL,
  memo text,
  currency text NOT NULL,
  subtotal_minor bigint NOT NULL,
  tax_minor bigint NOT NULL,
  total_minor bigint NOT NULL,
  -- where the total went at finalization: what the invoice still owed is cancelled first, the
  -- rest goes to the customer balance (CREDIT_TO_BALANCE) or back as a refund (REFUND)
  debt_cancelled_minor bigint NOT NULL DEFAULT 0,
  credited_minor bigint NOT NULL DEFAULT 0,
  refunded_minor bigint NOT NULL DEFAULT 0,
  pdf_document_id text REFERENCES documents(id),
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  finalized_at timestamptz,
  voided_at timestamptz,
  CHECK (status = 'DRAFT' OR credit_note_number IS NOT NULL),
  CHECK (total_minor = subtotal_minor + tax_minor)
);
CREATE UNIQUE INDEX credit_notes_number_key ON credit_notes (tenant_id, invoicing_entity_id, credit_note_number);
CREATE INDEX credit_notes_tenant_idx ON credit_notes (tenant_id, created_at DESC, id DESC);
CREATE INDEX credit_notes_invoice_idx ON credit_notes (tenant_id, invoice_id);

CREATE TABLE credit_note_lines (
  id text PRIMARY KEY,
  tenant_id text NOT NULL REFERENCES tenants(id),
  credit_note_id text NOT NULL REFERENCES credit_notes(id) ON DELETE CASCADE,
  invoice_line_id text NOT NULL REFERENCES invoice_lines(id),
  position integer NOT NULL,
  name text NOT NULL,
  taxable_minor bigint NOT NULL,
  tax_minor bigint NOT NULL,
  total_minor bigint NOT NULL,
  tax_rate numeric NOT NULL,
  tax_treatment text NOT NULL,
  tax_country text,
  CHECK (total_minor = taxable_minor + tax_minor),
  UNIQUE (credit_note_id, invoice_line_id)
);
CREATE INDEX credit_note_lines_invoice_line_idx ON credit_note_lines (tenant_id, invoice_line_id);
