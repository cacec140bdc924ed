package dev.txoutbox.fleet.internal;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.config.MeterFilter;

/**
 * Tags each meter of a node's relays with {@code outbox} (and {@code fleet_node}): the relays name
 * their meters {@code relay=<node>.<outbox>}. Loaded only when the node is given a registry, so
 * Micrometer stays optional.
 */
public final class FleetMeters {

  private FleetMeters() {}

  /** Adds the filter to {@code registry} (an {@code io.micrometer} {@code MeterRegistry}). */
  public static void tagByOutbox(Object registry, String node) {
    String prefix = node + ".";
    ((MeterRegistry) registry)
        .config()
        .meterFilter(
            new MeterFilter() {
              @Override
              public Meter.Id map(Meter.Id id) {
                String relay = id.getTag("relay");
                if (relay == null || !relay.startsWith(prefix)) {
                  return id;
                }
                String outbox = relay.substring(prefix.length());
                if (outbox.endsWith("-sweeper")) {
                  outbox = outbox.substring(0, outbox.length() - "-sweeper".length());
                }
                return id.withTags(
                    java.util.List.of(Tag.of("outbox", outbox), Tag.of("fleet_node", node)));
              }
            });
  }
}
