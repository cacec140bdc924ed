package dev.txoutbox.wal;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The hand-written reading of {@code timestamptz} text against the server that writes it: seeded
 * random instants from year 2 to 9999, with and without fractions, in random time zones (and in
 * some with offsets in seconds, as zones had before 1900), written by the server in its ISO text
 * form and read back; replay a seed with {@code -Dtxoutbox.timestamptz.seed=}.
 */
class TimestamptzTextDifferentialTest {

  private static final long SEED = Long.getLong("txoutbox.timestamptz.seed", System.nanoTime());
  private static final long FIRST = Instant.parse("0002-01-01T00:00:00Z").getEpochSecond();
  private static final long LAST = Instant.parse("9999-12-30T00:00:00Z").getEpochSecond();
  private static final List<String> ALWAYS =
      List.of("UTC", "Europe/Amsterdam", "Asia/Kolkata", "America/St_Johns", "Pacific/Kiritimati");

  @Test
  void readsWhatTheServerWritesInEveryZone() throws Exception {
    System.out.println("TimestamptzTextDifferentialTest seed " + SEED);
    Random random = new Random(SEED);
    int read = 0;
    int byHand = 0;
    try (Connection c = LogicalServer.dataSource().getConnection()) {
      List<String> zones = new ArrayList<>(ALWAYS);
      List<String> all = new ArrayList<>();
      try (Statement s = c.createStatement();
          // A catalog view outside the generated model, on a connection of the test's own.
          ResultSet r = s.executeQuery("SELECT name FROM pg_timezone_names ORDER BY name")) {
        while (r.next()) {
          all.add(r.getString(1));
        }
      }
      for (int i = 0; i < 40; i++) {
        zones.add(all.get(random.nextInt(all.size())));
      }
      for (String zone : zones) {
        Long[] seconds = new Long[100];
        Long[] micros = new Long[seconds.length];
        for (int i = 0; i < seconds.length; i++) {
          seconds[i] =
              i % 10 == 0
                  ? Instant.parse("1900-01-01T00:00:00Z").getEpochSecond()
                      + random.nextInt(86_400 * 400)
                  : FIRST + (long) (random.nextDouble() * (LAST - FIRST));
          micros[i] =
              switch (i % 4) {
                case 0 -> 0L; // no fraction
                case 1 -> random.nextInt(1_000) * 1_000L; // milliseconds
                default -> (long) random.nextInt(1_000_000);
              };
        }
        List<String> texts = new ArrayList<>();
        try (Statement s = c.createStatement()) {
          // SET takes no bind parameter; the zone is a name the server itself listed.
          s.execute("SET TIME ZONE '" + zone.replace("'", "''") + "'");
        }
        try (PreparedStatement p =
            c.prepareStatement(
                "SELECT (to_timestamp(s::float8) + f * interval '1 microsecond')::text"
                    + " FROM unnest(?::bigint[], ?::bigint[]) WITH ORDINALITY AS t(s, f, n)"
                    + " ORDER BY n")) {
          Array a = c.createArrayOf("bigint", seconds);
          Array b = c.createArrayOf("bigint", micros);
          p.setArray(1, a);
          p.setArray(2, b);
          try (ResultSet r = p.executeQuery()) {
            while (r.next()) {
              texts.add(r.getString(1));
            }
          }
        }
        for (int i = 0; i < texts.size(); i++) {
          String text = texts.get(i);
          Instant expected = Instant.ofEpochSecond(seconds[i]).plus(micros[i], ChronoUnit.MICROS);
          assertThat(TimestamptzText.parse(text))
              .as("%s in %s (seed %d)", text, zone, SEED)
              .isEqualTo(expected)
              .isEqualTo(OffsetDateTime.parse(text, TimestamptzText.FORMAT).toInstant());
          read++;
          if (TimestamptzText.fast(text) != null) {
            byHand++;
          }
        }
      }
    }
    assertThat(read).isEqualTo(100 * (ALWAYS.size() + 40));
    // Every such text has the usual form: none should need the formatter.
    assertThat(byHand).as("read by hand").isEqualTo(read);
  }

  @Test
  void leavesOtherFormsToTheFormatter() {
    for (String text :
        List.of(
            "12026-01-02 03:04:05+00",
            "2026-01-02T03:04:05+00",
            "2026-13-02 03:04:05+00",
            "2026-02-30 03:04:05+00",
            "2026-01-02 24:00:00+00",
            "2026-01-02 03:04:05.+00",
            "2026-01-02 03:04:05.1234567890+00",
            "2026-01-02 03:04:05+0",
            "2026-01-02 03:04:05+19",
            "2026-01-02 03:04:05+05:3x",
            "2026-01-02 03:04:05 BC",
            "infinity")) {
      assertThat(TimestamptzText.fast(text)).as(text).isNull();
    }
  }
}
