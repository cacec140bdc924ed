package dev.txoutbox.fleet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.txoutbox.RelayConfig;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class FleetNodeBuilderTest {

  private static FleetNode.Builder valid() {
    return FleetNode.builder()
        .controlDataSource(FleetDatabases.dataSource("jdbc:postgresql://127.0.0.1:1/none"));
  }

  @Test
  void theLongestNodeAndOutboxNamesMakeAValidRelayName() {
    String node = "n".repeat(FleetNode.MAX_NODE_ID_LENGTH);
    String outbox = "o".repeat(FleetOutbox.MAX_NAME_LENGTH);
    assertThat(valid().nodeId(node).build().nodeId()).isEqualTo(node);
    assertThat(RelayConfig.builder().name(node + "." + outbox + "-sweeper").build().name())
        .hasSize(64);
  }

  @Test
  void aDefaultNodeIdIsValid() {
    assertThat(valid().build().nodeId()).matches("[A-Za-z0-9_-]{1,31}");
  }

  @Test
  void namesTheOptionAndTheLimit() {
    assertThatThrownBy(() -> valid().nodeId("a.b").build())
        .hasMessage("nodeId must be 1 to 31 characters of [A-Za-z0-9_-] but was 'a.b'");
    assertThatThrownBy(() -> valid().leaseTtl(Duration.ofMillis(500)).build())
        .hasMessage("leaseTtl must be at least 1s but was PT0.5S");
    assertThatThrownBy(
            () ->
                valid()
                    .leaseTtl(Duration.ofSeconds(3))
                    .renewInterval(Duration.ofSeconds(2))
                    .build())
        .hasMessage(
            "renewInterval must be positive and at most a third of leaseTtl (PT1S) but was PT2S");
    assertThatThrownBy(() -> valid().poolSize(0).build())
        .hasMessage("poolSize must be between 1 and 100 but was 0");
    assertThatThrownBy(() -> FleetNode.builder().build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("controlDataSource must be given but was not");
  }
}
