package dev.txoutbox.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.txoutbox.testing.OutboxTestDatabase;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The overview's counts are read once per {@code countsMaxAge} for any number of viewers (what
 * keeps a watched console from slowing the relay), and an action forgets them.
 */
class OverviewCountsCacheTest {

  @RegisterExtension static final OutboxTestDatabase db = OutboxTestDatabase.create();

  @TempDir static Path dir;

  @Test
  void theCountsAreReusedUntilTheyAgeOrAnActionChangesThem() throws Exception {
    Seed seed = new Seed(db);
    seed.dead("OrderPlaced", "1", "boom");
    Path secret = Files.writeString(dir.resolve("secret"), RunningConsole.SECRET);
    try (RunningConsole console =
        RunningConsole.start(
            RunningConsole.builder(db)
                .countsMaxAge(Duration.ofMinutes(5))
                .adminCredential(AdminCredential.fromFile(secret)))) {
      ConsoleClient http = console.client;
      assertThat(http.json("api/o/main/overview").get("deadLetters").asLong()).isEqualTo(1);

      seed.pending("OrderPlaced", "2", "{}");
      seed.dead("OrderPlaced", "3", "boom");
      // Within 5 minutes: the counts read before, not a second count of the table.
      assertThat(http.json("api/o/main/overview").get("pending").asLong()).isZero();
      assertThat(http.json("api/o/main/overview").get("deadLetters").asLong()).isEqualTo(1);

      var purge =
          http.post(
              "api/o/main/dead-letters/purge",
              "expected=2",
              "X-CSRF-Token",
              http.csrfToken(),
              "Authorization",
              "Bearer " + RunningConsole.SECRET);
      assertThat(purge.statusCode()).as(purge.body()).isEqualTo(200);
      // The action forgot them: read again.
      assertThat(http.json("api/o/main/overview").get("deadLetters").asLong()).isZero();
      assertThat(http.json("api/o/main/overview").get("pending").asLong()).isEqualTo(1);
    }
  }

  @Test
  void theMaxAgeIsBounded() {
    assertThatThrownBy(() -> RunningConsole.builder(db).countsMaxAge(Duration.ofMinutes(6)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("countsMaxAge must be between 0s and 5m but was PT6M");
  }
}
