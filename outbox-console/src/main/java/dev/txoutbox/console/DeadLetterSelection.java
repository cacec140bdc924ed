package dev.txoutbox.console;

import static dev.txoutbox.schema.model.Tables.OUTBOX_EVENTS;

import dev.txoutbox.DeadLetterGroup;
import dev.txoutbox.DeadLetterSelector;
import dev.txoutbox.OutboxAdmin;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.LongConsumer;
import java.util.function.ToLongFunction;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Record1;
import org.jooq.Select;
import org.jooq.impl.DSL;
import org.jspecify.annotations.Nullable;

/**
 * The dead letters an action applies to, from the request's parameters: given ids (a selection on
 * the page), one group (an event type and an error fingerprint as {@link
 * OutboxAdmin#deadLetterGroups()} shows it), one event type, or all. The action itself is always
 * the admin's {@link OutboxAdmin#requeue} or {@link OutboxAdmin#purge}, so it keeps their
 * guarantees against running relays and other operators; anything but given ids is handed to them
 * as the ids of its members, {@value #CHUNK} at a time, so that a large action reports its
 * progress. Immutable.
 */
record DeadLetterSelection(
    @Nullable String eventType, @Nullable String fingerprint, Set<UUID> ids) {

  /** Most ids one request selects, and members of a group handed to the admin at once: 1,000. */
  static final int CHUNK = 1_000;

  /** Length of a {@link #groupKey}: 22 characters. */
  static final int GROUP_KEY_LENGTH = 22;

  /**
   * The admin's fingerprint of an error: its varying parts (quoted values, UUIDs, hex and decimal
   * numbers) replaced by {@code ?}, in PostgreSQL's regular expressions. A copy of the rule in
   * outbox-core's admin, which does not export it; DeadLetterGroupsApiTest checks that the two
   * group the same dead letters the same way.
   */
  private static final String VARIABLE_PARTS =
      "(?<![^\\s(\\[{=:])'[^'\\n]{2,}'(?![[:alnum:]])"
          + "|(?<![^\\s(\\[{=:])\"[^\"\\n]{2,}\"(?![[:alnum:]])"
          + "|[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
          + "|0x[0-9a-fA-F]+|(?<![[:alpha:]_])[0-9]+";

  static final Set<String> PARAMETERS = Set.of("eventType", "group", "id", "expected");

  /**
   * The key of a group in URLs and forms: a digest of its event type and fingerprint, so that a
   * fingerprint, error text that may hold a secret, never travels unmasked.
   */
  static String groupKey(DeadLetterGroup group) {
    try {
      byte[] digest =
          MessageDigest.getInstance("SHA-256")
              .digest(
                  (group.eventType() + "\u0000" + group.errorFingerprint())
                      .getBytes(StandardCharsets.UTF_8));
      return Base64.getUrlEncoder().withoutPadding().encodeToString(digest).substring(0, 22);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java platform has SHA-256", e);
    }
  }

  /**
   * The selection in {@code params}.
   *
   * @throws Refusal 400 if a value is out of bounds, or a fingerprint comes without its event type,
   *     or ids come with a type
   */
  static DeadLetterSelection parse(Params params, OutboxAdmin admin) {
    String eventType = params.text("eventType", Params.MAX_TEXT);
    String key = params.text("group", GROUP_KEY_LENGTH);
    Set<UUID> ids = new LinkedHashSet<>();
    for (String id : params.all("id", CHUNK)) {
      ids.add(Params.uuid("id", id));
    }
    if (!ids.isEmpty() && (eventType != null || key != null)) {
      throw Refusal.badRequest("id must not be given with eventType or group but was");
    }
    if (key == null) {
      return new DeadLetterSelection(eventType, null, Set.copyOf(ids));
    }
    if (eventType != null) {
      throw Refusal.badRequest("group must not be given with eventType (it has its own) but was");
    }
    for (DeadLetterGroup group : admin.deadLetterGroups()) {
      if (groupKey(group).equals(key)) {
        return new DeadLetterSelection(group.eventType(), group.errorFingerprint(), Set.of());
      }
    }
    throw new Refusal(
        409,
        "no group of dead letters has key "
            + Text.quoted(key)
            + " now: its dead letters were requeued or purged meanwhile, or changed; reload the"
            + " page",
        Map.of());
  }

  /** The selection in words, for the confirmation and the audit log. */
  String describe() {
    if (!ids.isEmpty()) {
      return ids.size() == 1
          ? "dead letter " + ids.iterator().next()
          : ids.size() + " given dead letters";
    }
    if (eventType == null) {
      return "all dead letters";
    }
    return "dead letters of type "
        + Text.quoted(eventType)
        + (fingerprint == null
            ? ""
            : " whose error reads like " + Text.quoted(Text.masked(fingerprint)));
  }

  /** How many dead letters the action would touch now. */
  long count(OutboxAdmin admin, DSLContext dsl) {
    if (fingerprint == null) {
      return admin.count(selector());
    }
    return dsl.fetchSingle(groupCountQuery()).value1();
  }

  /** The count of a group's dead letters, along the dead letters' index. */
  Select<Record1<Integer>> groupCountQuery() {
    return DSL.selectCount().from(OUTBOX_EVENTS).where(group());
  }

  /**
   * Runs {@code action} ({@link OutboxAdmin#requeue} or {@link OutboxAdmin#purge}) on the
   * selection, {@value #CHUNK} dead letters at a time; returns how many it changed.
   *
   * @param progress told the total changed so far after each chunk
   */
  long apply(ToLongFunction<DeadLetterSelector> action, DSLContext dsl, LongConsumer progress) {
    if (!ids.isEmpty()) {
      long changed = action.applyAsLong(selector());
      progress.accept(changed);
      return changed;
    }
    Condition selected = fingerprint != null ? group() : members();
    long total = 0;
    UUID after = null;
    while (true) {
      Condition rest = after == null ? selected : selected.and(OUTBOX_EVENTS.ID.gt(after));
      List<UUID> chunk =
          dsl.select(OUTBOX_EVENTS.ID)
              .from(OUTBOX_EVENTS)
              .where(rest)
              .orderBy(OUTBOX_EVENTS.ID)
              .limit(CHUNK)
              .fetch(OUTBOX_EVENTS.ID);
      if (!chunk.isEmpty()) {
        total += action.applyAsLong(DeadLetterSelector.ids(Set.copyOf(chunk)));
        progress.accept(total);
      }
      if (chunk.size() < CHUNK) {
        return total;
      }
      after = chunk.get(chunk.size() - 1);
    }
  }

  private DeadLetterSelector selector() {
    if (!ids.isEmpty()) {
      return DeadLetterSelector.ids(ids);
    }
    return eventType == null ? DeadLetterSelector.all() : DeadLetterSelector.eventType(eventType);
  }

  /** All dead letters, or those of one type. */
  private Condition members() {
    Condition dead = OUTBOX_EVENTS.DEAD_LETTERED_AT.isNotNull();
    return eventType == null ? dead : dead.and(OUTBOX_EVENTS.EVENT_TYPE.eq(eventType));
  }

  /** The dead letters of the group: its type, and its fingerprint as the admin computes it. */
  @SuppressWarnings("NullAway") // only called with a fingerprint, which comes with its type
  private Condition group() {
    Field<String> print =
        DSL.regexpReplaceAll(
            DSL.coalesce(OUTBOX_EVENTS.LAST_ERROR, DSL.inline("")), VARIABLE_PARTS, "?");
    return OUTBOX_EVENTS
        .DEAD_LETTERED_AT
        .isNotNull()
        .and(OUTBOX_EVENTS.EVENT_TYPE.eq(eventType))
        .and(print.eq(fingerprint));
  }
}
