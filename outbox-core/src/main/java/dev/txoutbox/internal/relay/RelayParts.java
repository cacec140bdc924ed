package dev.txoutbox.internal.relay;

import dev.txoutbox.OutboxAdmin;
import dev.txoutbox.PublishTracer;
import dev.txoutbox.RelayConfig;
import dev.txoutbox.RelayListener;
import dev.txoutbox.schema.OutboxTables;
import dev.txoutbox.spi.Publisher;
import java.time.Clock;
import java.util.List;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jspecify.annotations.Nullable;

/**
 * What the relay's builder checked and hands to {@link DefaultOutboxRelay}.
 *
 * @param dsl the relay's context, rendering the generated model onto {@code tables}
 * @param tables where the outbox is: schema and table prefix
 * @param admin admin operations on the same database, schema and clock
 * @param listeners the relay's own meters if any, then the user's listeners
 * @param closeWithRelay closed last by the relay's {@code close()}: its meters
 * @param metrics the metrics settings for the start line, or {@code "off"}
 * @param listenDataSource where to LISTEN for the opt-in trigger's notifications, or null
 * @param tracer traces each publish, {@link PublishTracer#none()} when off
 * @param threads makes every thread the relay starts
 */
public record RelayParts(
    DSLContext dsl,
    OutboxTables tables,
    OutboxAdmin admin,
    Publisher publisher,
    RelayConfig config,
    Clock clock,
    List<RelayListener> listeners,
    Runnable closeWithRelay,
    String metrics,
    @Nullable DataSource listenDataSource,
    PublishTracer tracer,
    RelayThreads threads) {}
