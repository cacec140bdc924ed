/**
 * The outbox tables: the Flyway migrations ({@link dev.txoutbox.schema.OutboxSchema}) and the jOOQ
 * model generated from them ({@code dev.txoutbox.schema.model}). jOOQ and JDBC types appear in the
 * API, so a module reading this one reads them too; Flyway is used inside only.
 */
module dev.txoutbox.schema {
  requires transitive java.sql;
  requires transitive org.jooq;
  requires flyway.core;

  exports dev.txoutbox.schema;
  exports dev.txoutbox.schema.model;
  exports dev.txoutbox.schema.model.tables;
  exports dev.txoutbox.schema.model.tables.records;

  // The migration scripts: db/migration/outbox is a legal package name, so on the module path its
  // resources are encapsulated unless opened, and Flyway reads them through the class loader. It
  // holds resources only, so javac warns that the package is empty; the jar has it. (The other
  // locations, outbox-notify and outbox-ordering, are no package names and always readable.)
  opens db.migration.outbox;
}
