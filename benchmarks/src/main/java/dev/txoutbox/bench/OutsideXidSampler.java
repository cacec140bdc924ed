package dev.txoutbox.bench;

import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Record2;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Samples every 50 ms the oldest transaction holding an xid that is not the benchmark's own (any
 * session of the server whose {@code application_name} is not {@link #APPLICATION_NAME}, in any
 * database): such a transaction holds back {@code pg_snapshot_xmin} for everyone. Keeps the
 * greatest age seen.
 */
final class OutsideXidSampler {

  private static final Logger log = LoggerFactory.getLogger(OutsideXidSampler.class);

  // pg_stat_activity is a catalog view, outside the generated model.
  private static final Field<OffsetDateTime> XACT_START =
      DSL.field(DSL.name("xact_start"), SQLDataType.TIMESTAMPWITHTIMEZONE);
  private static final Field<Object> BACKEND_XID =
      DSL.field(DSL.name("backend_xid"), SQLDataType.OTHER);
  private static final Field<String> APPLICATION =
      DSL.field(DSL.name("application_name"), SQLDataType.VARCHAR);

  /** The {@code ApplicationName} of every connection the benchmark opens. */
  static final String APPLICATION_NAME = "txoutbox-commit-order-bench";

  private final DSLContext dsl;
  private final Thread thread;
  private volatile boolean stopped;
  private volatile long maxAgeMillis;

  OutsideXidSampler(DataSource dataSource) {
    this.dsl = DSL.using(dataSource, SQLDialect.POSTGRES);
    this.thread = new Thread(this::loop, "commit-order-xid-sampler");
  }

  void start() {
    thread.start();
  }

  void stop() throws InterruptedException {
    stopped = true;
    thread.join(TimeUnit.SECONDS.toMillis(10));
  }

  /** The oldest such transaction's greatest age, in milliseconds; 0 if none was seen. */
  long maxAgeMillis() {
    return maxAgeMillis;
  }

  private void loop() {
    while (!stopped) {
      try {
        Record2<OffsetDateTime, OffsetDateTime> r =
            dsl.select(
                    DSL.min(XACT_START),
                    DSL.function("clock_timestamp", SQLDataType.TIMESTAMPWITHTIMEZONE))
                .from(DSL.table(DSL.name("pg_catalog", "pg_stat_activity")))
                .where(BACKEND_XID.isNotNull())
                .and(APPLICATION.isDistinctFrom(APPLICATION_NAME))
                .fetchOne();
        if (r != null && r.value1() != null) {
          maxAgeMillis =
              Math.max(maxAgeMillis, Duration.between(r.value1(), r.value2()).toMillis());
        }
      } catch (RuntimeException e) {
        log.warn("sampling pg_stat_activity failed", e);
      }
      try {
        TimeUnit.MILLISECONDS.sleep(50);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }
}
