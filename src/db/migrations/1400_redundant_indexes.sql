-- Three indexes that another index of the same table already serves, dropped: every row written
-- paid for an entry that no query needed (a third of the index entries of each invoice line;
-- docs/performance.md, "Bill run"). test/db/redundant-indexes.test.ts keeps such pairs out.
-- (tenant_id, seq) is the primary key itself since 0960.
DROP INDEX IF EXISTS outbox_events_tenant_idx;
-- (tenant_id, invoice_id) leads the unique (tenant_id, invoice_id, line_no).
DROP INDEX IF EXISTS invoice_lines_invoice_idx;
-- (tenant_id, invoice_id) leads the primary key (tenant_id, invoice_id, position).
DROP INDEX IF EXISTS invoice_tax_breakdown_tenant_idx;
