package dev.txoutbox;

/**
 * Turns a payload object into JSON text, for payloads that are not already JSON ({@link String},
 * UTF-8 {@code byte[]} or {@link org.jooq.JSONB}). Supply one to {@link Outbox.Builder}, for
 * example backed by Jackson: {@code payload -> objectMapper.writeValueAsString(payload)}.
 *
 * <p>Implementations must be thread-safe. The writer validates the returned text as JSON.
 */
@FunctionalInterface
public interface PayloadSerializer {

  /**
   * Serialises {@code payload} to JSON text.
   *
   * @param payload never null
   * @return a JSON document; never null
   * @throws Exception if the object cannot be serialised; the writer rethrows it as an {@link
   *     IllegalArgumentException} naming the payload
   */
  String toJson(Object payload) throws Exception;
}
