package dev.txoutbox.inbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.txoutbox.testing.TestDatabase;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import org.jooq.DSLContext;
import org.jooq.Record2;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Consumer names against the real PostgreSQL: what is accepted is stored exactly as given. */
class ConsumerNameTest {

  private static final char HIGH = (char) 0xD800;
  private static final char LOW = (char) 0xDC00;

  /** Pieces that show something; some are more than one code point or more than one char. */
  private static final List<String> VISIBLE =
      List.of(
          "a",
          "Z",
          "7",
          "-",
          ".",
          "_",
          "é",
          "e\u0301",
          "\u0301",
          "中",
          "ж",
          "\uFFFD",
          "\uFFFF",
          "\uE000",
          "🚚",
          new String(Character.toChars(0x1D11E)),
          new String(Character.toChars(0x10FFFF)));

  /**
   * Pieces that show nothing: white space of every kind, controls, zero-width and format
   * characters.
   */
  private static final List<String> INVISIBLE =
      List.of(
          " ", "\t", "\n", "\u0007", "\u00A0", "\u2007", "\u202F", "\u3000", "\u200B", "\u200C",
          "\u200D", "\u2060", "\uFEFF", "\u00AD", "\uFE0F", "\u3164", "\u034F", "\u0085", "\u001F");

  /** Pieces PostgreSQL cannot store as given. */
  private static final List<String> UNSTORABLE =
      List.of(
          "\u0000",
          String.valueOf(HIGH),
          String.valueOf(LOW),
          String.valueOf((char) 0xDBFF),
          String.valueOf(LOW) + HIGH);

  private static TestDatabase db;
  private static DSLContext dsl;
  private OutboxInbox inbox;

  @BeforeAll
  static void migrate() {
    db = TestDatabase.createEmpty("inbox_names", 2);
    OutboxInbox.migrate(db.dataSource(), db.schema());
    dsl = DSL.using(db.dataSource(), SQLDialect.POSTGRES);
  }

  @AfterAll
  static void drop() {
    db.close();
  }

  @BeforeEach
  void empty() {
    db.execute("TRUNCATE " + db.schema() + ".inbox_processed_events");
    inbox = OutboxInbox.builder().schema(db.schema()).build();
  }

  @Test
  void twoNamesThatDifferOnlyInAnUnpairedSurrogateAreRefusedInsteadOfStoredAsOne() {
    UUID event = UUID.randomUUID();

    assertThatThrownBy(() -> firstTime("c" + HIGH, event))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "consumerName must be valid UTF-16 but had an unpaired surrogate U+D800 at index 1 (it"
                + " has no UTF-8 form)");
    assertThatThrownBy(() -> firstTime("c" + LOW, event))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "consumerName must be valid UTF-16 but had an unpaired surrogate U+DC00 at index 1 (it"
                + " has no UTF-8 form)");
    assertThatThrownBy(() -> firstTime("ship" + LOW + HIGH + "ping", event))
        .hasMessageContaining("unpaired surrogate U+DC00 at index 4");
    assertThat(marks()).isZero();
  }

  @ParameterizedTest
  @ValueSource(
      strings = {"\u00A0", "\u200B", "\u00A0\u200B\u200D\uFEFF", "\u3000\u2060", "\u3164\uFE0F"})
  void aNameOfOnlyNoBreakSpacesOrZeroWidthCharactersIsRefused(String name) {
    assertThatThrownBy(() -> firstTime(name, UUID.randomUUID()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith(
            "consumerName must not be blank (only whitespace, no-break spaces or invisible"
                + " characters such as U+200B) but was U+");
    assertThat(marks()).isZero();
  }

  @Test
  void aBlankNameIsShownAsItsCodePoints() {
    assertThatThrownBy(() -> OutboxInbox.requireConsumerName("\u00A0 \u200B"))
        .hasMessage(
            "consumerName must not be blank (only whitespace, no-break spaces or invisible"
                + " characters such as U+200B) but was U+00A0 U+0020 U+200B");
    assertThatThrownBy(() -> OutboxInbox.requireConsumerName(""))
        .hasMessageEndingWith("but was empty");
  }

  @Test
  void aNameWithTrailingSpacesPastTheLimitIsRefusedNotCutByTheColumn() {
    // varchar(255) would silently drop the excess spaces, storing it as the 255-x name.
    assertThatThrownBy(() -> firstTime("x".repeat(255) + "  ", UUID.randomUUID()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("but had 257");
    assertThat(marks()).isZero();
  }

  /**
   * Seeded random names of valid and unstorable pieces, visible and invisible ones, lengths around
   * the limit: each is refused exactly when an independent oracle says PostgreSQL could not store
   * it as given, and every accepted name is stored byte for byte and found again, never merged with
   * another.
   */
  @ParameterizedTest
  @ValueSource(longs = {32L, 20261206L})
  void everyAcceptedNameRoundTripsExactlyAndNoTwoCollide(long seed) {
    Random random = new Random(seed);
    Set<String> names = new LinkedHashSet<>();
    while (names.size() < 1_500) {
      names.add(randomName(random));
    }
    UUID event = UUID.randomUUID();
    List<String> accepted = new ArrayList<>();
    List<String> mismatches = new ArrayList<>();
    dsl.transaction(
        c -> {
          for (String name : names) {
            String expected = oracle(name);
            Throwable refused = catchThrowable(() -> inbox.firstTime(c.dsl(), name, event));
            if (expected == null && refused == null) {
              accepted.add(name);
            } else if (expected == null) {
              mismatches.add(show(name) + " refused: " + refused);
            } else if (refused == null) {
              mismatches.add(show(name) + " accepted, but " + expected);
            } else if (!(refused instanceof IllegalArgumentException)
                || !refused.getMessage().startsWith("consumerName must")) {
              mismatches.add(show(name) + " refused with " + refused);
            }
          }
        });

    assertThat(mismatches).isEmpty();
    Map<String, byte[]> stored = new HashMap<>();
    for (Record2<String, byte[]> row :
        dsl.select(
                DSL.field("consumer", SQLDataType.VARCHAR),
                DSL.field("convert_to(consumer, 'UTF8')", SQLDataType.BLOB))
            .from(DSL.table(DSL.name(db.schema(), "inbox_processed_events")))
            .where(DSL.field("event_id", SQLDataType.UUID).eq(event))
            .fetch()) {
      stored.put(row.value1(), row.value2());
    }
    assertThat(stored).hasSameSizeAs(accepted);
    for (String name : accepted) {
      assertThat(stored).as(show(name)).containsKey(name);
      assertThat(stored.get(name)).as(show(name)).isEqualTo(name.getBytes(StandardCharsets.UTF_8));
    }
    assertThat(accepted)
        .as("each accepted name finds its own mark again")
        .allMatch(name -> !firstTime(name, event));
    assertThat(accepted.size()).isBetween(200, names.size() - 200);
  }

  /**
   * Why {@code name} cannot be stored as given, or null if it can; worked out without the code
   * under test: UTF-8 encoding, the pieces' known visibility, and code points counted by the JDK.
   */
  private static String oracle(String name) {
    if (name.indexOf('\0') >= 0) {
      return "PostgreSQL cannot store U+0000";
    }
    try {
      StandardCharsets.UTF_8
          .newEncoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .encode(CharBuffer.wrap(name));
    } catch (CharacterCodingException e) {
      return "it has no UTF-8 form";
    }
    if (!showsSomething(name)) {
      return "it shows nothing";
    }
    if (name.codePointCount(0, name.length()) > OutboxInbox.MAX_CONSUMER_NAME_LENGTH) {
      return "it is longer than the column";
    }
    return null;
  }

  private static boolean showsSomething(String name) {
    String rest = name;
    for (String piece : INVISIBLE) {
      rest = rest.replace(piece, "");
    }
    return !rest.isEmpty();
  }

  private static String randomName(Random random) {
    int target =
        switch (random.nextInt(4)) {
          case 0 -> 1 + random.nextInt(3);
          case 1 -> 1 + random.nextInt(20);
          default -> 250 + random.nextInt(10);
        };
    boolean invisibleOnly = random.nextInt(6) == 0;
    boolean unstorable = random.nextInt(5) == 0;
    StringBuilder name = new StringBuilder();
    while (name.codePointCount(0, name.length()) < target) {
      List<String> pieces = invisibleOnly || random.nextInt(4) == 0 ? INVISIBLE : VISIBLE;
      name.append(pieces.get(random.nextInt(pieces.size())));
    }
    if (unstorable) {
      String piece = UNSTORABLE.get(random.nextInt(UNSTORABLE.size()));
      name.insert(random.nextInt(name.length() + 1), piece);
    }
    return name.toString();
  }

  private boolean firstTime(String name, UUID event) {
    return dsl.transactionResult(c -> inbox.firstTime(c.dsl(), name, event));
  }

  private static int marks() {
    return dsl.fetchCount(DSL.table(DSL.name(db.schema(), "inbox_processed_events")));
  }

  private static String show(String name) {
    StringBuilder s = new StringBuilder();
    for (char c : name.toCharArray()) {
      s.append(c >= 0x20 && c < 0x7F ? String.valueOf(c) : String.format("\\u%04X", (int) c));
    }
    return s.toString();
  }
}
