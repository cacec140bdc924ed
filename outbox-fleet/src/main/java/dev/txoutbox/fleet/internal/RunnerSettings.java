package dev.txoutbox.fleet.internal;

import dev.txoutbox.RelayConfig;
import dev.txoutbox.fleet.PublisherFactory;
import java.time.Duration;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * What every runner of one node shares.
 *
 * @param node the node's id
 * @param publishers makes each outbox's publisher
 * @param relayConfig the relays' configuration; its name is replaced by {@code <node>.<outbox>}
 * @param meterRegistry a Micrometer {@code MeterRegistry}, or null (typed as Object so that
 *     Micrometer stays optional)
 * @param environment the node's environment variables, for {@code env:} references
 * @param poolSize connections in each outbox's pool
 * @param minBackoff first wait after a failed start, doubling
 * @param maxBackoff longest wait after a failed start
 * @param walSweepInterval the polling interval of a WAL outbox's sweeper
 */
public record RunnerSettings(
    String node,
    PublisherFactory publishers,
    RelayConfig relayConfig,
    @Nullable Object meterRegistry,
    Function<String, @Nullable String> environment,
    int poolSize,
    Duration minBackoff,
    Duration maxBackoff,
    Duration walSweepInterval) {}
