package dev.txoutbox.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The WAL section's pieces that need no server: the child's file, the settings, the options. */
class WalPiecesTest {

  @TempDir Path dir;

  @Test
  void theParentReadsTheCommitTimesAndTheFiguresTheChildWrote() throws Exception {
    UUID a = UUID.randomUUID();
    UUID b = UUID.randomUUID();
    Path file = dir.resolve("commits.txt");
    Files.write(file, List.of(a + " 1764619200000001", b + " 1764619200123456"));

    LatencyBenchmark.Steady steady = RemoteWriters.read(file, "written 10.25 3");

    assertThat(steady.committedAt())
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(a, 1_764_619_200_000_001L, b, 1_764_619_200_123_456L));
    assertThat(steady.seconds()).isEqualTo(10.25);
    assertThat(steady.failed()).isEqualTo(3);
  }

  @Test
  void latencyIsSeenMinusCommittedNeverNegativeAndLeavesOutTheUnseen() {
    UUID early = UUID.randomUUID();
    UUID late = UUID.randomUUID();
    UUID unseen = UUID.randomUUID();
    Map<UUID, Long> committed = Map.of(early, 1_000L, late, 1_000L, unseen, 1_000L);
    Map<UUID, Long> seen = Map.of(early, 900L, late, 4_000L);

    assertThat(LatencyBenchmark.latencies(committed, seen)).containsExactly(0L, 3_000L);
  }

  @Test
  void settingsAreQuotedForPostgresqlConfIncludingAQuoteInAValue() {
    Map<String, String> settings = new LinkedHashMap<>();
    settings.put("shared_buffers", "128MB");
    settings.put("odd", "it's");

    assertThat(WalBenchmark.quoted(settings))
        .containsExactly(Map.entry("shared_buffers", "'128MB'"), Map.entry("odd", "'it''s'"));
  }

  @Test
  void theWalSectionRunsAloneAndAnUnknownSectionIsRefused() {
    Report.Options options = Report.Options.parse(new String[] {"--quick", "--sections", "wal"});
    assertThat(options.sections()).containsExactly("wal");
    assertThat(Report.SECTIONS).contains("wal");
    assertThatThrownBy(() -> Report.Options.parse(new String[] {"--sections", "slot"}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("wal")
        .hasMessageContaining("'slot'");
  }

  @Test
  void theFullProfileDrainsTheIssuesMillionAndTheQuickOneLess() {
    assertThat(ReportProfile.FULL.walDrainEvents()).isEqualTo(1_000_000);
    assertThat(ReportProfile.QUICK.walDrainEvents())
        .isLessThan(ReportProfile.FULL.walDrainEvents());
  }

  @Test
  void settingOverridesAreNameValuePairsInOrderAndAMalformedPairIsRefused() {
    assertThat(WalSection.overrides("")).isEmpty();
    assertThat(WalSection.overrides("synchronous_commit=off, wal_writer_delay = 10ms,"))
        .containsExactly(
            Map.entry("synchronous_commit", "off"), Map.entry("wal_writer_delay", "10ms"));
    for (String bad : List.of("synchronous_commit", "=off", "synchronous_commit=")) {
      assertThatThrownBy(() -> WalSection.overrides(bad))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining(WalSection.SETTINGS_PROPERTY)
          .hasMessageContaining("'" + bad + "'");
    }
  }
}
