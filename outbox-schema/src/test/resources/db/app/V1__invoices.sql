-- The application's own first migration, as a billing service would have it.
CREATE TABLE invoices (
    id     bigint       GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    total  numeric(12, 2) NOT NULL
);
