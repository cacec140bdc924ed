ALTER TABLE invoices ADD COLUMN customer varchar(255);
