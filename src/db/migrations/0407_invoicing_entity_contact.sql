-- E-invoicing (docs/einvoicing.md): the seller contact XRechnung requires (BG-6: BR-DE-2, 5, 6, 7)
-- and the seller's Peppol participant id (BT-34: PEPPOL-EN16931-R020), all optional. The scheme is
-- a 4-digit code of the Peppol EAS list (0088 GLN, 9930 German VAT...); id and scheme come together.
ALTER TABLE invoicing_entities
  ADD COLUMN contact_name text,
  ADD COLUMN contact_phone text,
  ADD COLUMN contact_email text,
  ADD COLUMN peppol_endpoint_scheme text CHECK (peppol_endpoint_scheme ~ '^[0-9]{4}$'),
  ADD COLUMN peppol_endpoint_id text,
  ADD CONSTRAINT invoicing_entities_peppol_endpoint_check CHECK ((peppol_endpoint_scheme IS NULL) = (peppol_endpoint_id IS NULL));
