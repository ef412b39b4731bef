-- E-invoicing (docs/einvoicing.md): an invoicing entity opts in with a format; finalized invoices
-- and credit notes of such an entity get a structured EN 16931 document beside their PDF.

-- The format is the opt-in: e_invoicing_enabled stays (the API has always had it) and says the
-- same thing, so the two can never disagree. Entities that had switched it on before formats
-- existed were promised Factur-X.
ALTER TABLE invoicing_entities ADD COLUMN e_invoicing_format text
  CHECK (e_invoicing_format IN ('FACTURX', 'XRECHNUNG_UBL', 'XRECHNUNG_CII', 'PEPPOL_BIS'));
UPDATE invoicing_entities SET e_invoicing_format = 'FACTURX' WHERE e_invoicing_enabled;
ALTER TABLE invoicing_entities ADD CONSTRAINT invoicing_entities_e_invoicing_opt_in
  CHECK (e_invoicing_enabled = (e_invoicing_format IS NOT NULL));

-- The structured documents are stored like the PDFs.
ALTER TABLE documents DROP CONSTRAINT documents_kind_check;
ALTER TABLE documents ADD CONSTRAINT documents_kind_check
  CHECK (kind IN ('INVOICE_PDF', 'CREDIT_NOTE_PDF', 'INVOICE_XML', 'CREDIT_NOTE_XML'));

-- One outcome per invoice or credit note: the format it was generated in, whether it passed the
-- EN 16931 rules we check, and the failed rules. Written once, with the document.
CREATE TABLE e_invoices (
  tenant_id text NOT NULL REFERENCES tenants(id),
  object_id text NOT NULL,
  object_kind text NOT NULL CHECK (object_kind IN ('INVOICE', 'CREDIT_NOTE')),
  format text NOT NULL CHECK (format IN ('FACTURX', 'XRECHNUNG_UBL', 'XRECHNUNG_CII', 'PEPPOL_BIS')),
  status text NOT NULL CHECK (status IN ('VALID', 'INVALID')),
  errors jsonb NOT NULL DEFAULT '[]',
  xml_document_id text NOT NULL REFERENCES documents(id),
  created_at timestamptz NOT NULL,
  PRIMARY KEY (tenant_id, object_id)
);
