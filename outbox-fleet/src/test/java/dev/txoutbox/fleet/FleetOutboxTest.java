package dev.txoutbox.fleet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class FleetOutboxTest {

  private static FleetOutbox.Builder valid() {
    return FleetOutbox.builder("tenant-a")
        .jdbcUrl("jdbc:postgresql://db:5432/app")
        .user("relay")
        .password("env:TENANT_A_PASSWORD")
        .publisher("kafka")
        .publisherSetting("bootstrap-servers", "kafka:9092");
  }

  @Test
  void acceptsAnEntryWithReferencesOnly() {
    FleetOutbox o = valid().publisherSetting("sasl-password", "file:/run/secrets/kafka").build();
    assertThat(o.password()).hasToString("env:TENANT_A_PASSWORD");
    assertThat(o.toString()).doesNotContain("secret-value");
  }

  @Test
  void rejectsAUrlCarryingAPasswordWithoutShowingIt() {
    assertThatThrownBy(() -> valid().jdbcUrl("jdbc:postgresql://db/app?password=hunter2").build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("jdbcUrl must not carry a password")
        .hasMessageNotContaining("hunter2");
    assertThatThrownBy(() -> valid().jdbcUrl("jdbc:postgresql://relay:hunter2@db:5432/app").build())
        .hasMessageContaining("jdbcUrl must not carry a password")
        .hasMessageNotContaining("hunter2");
  }

  @Test
  void rejectsASecretSettingThatIsNotAReference() {
    assertThatThrownBy(() -> valid().publisherSetting("sasl-password", "hunter2").build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("publisher setting sasl-password must be a reference")
        .hasMessageNotContaining("hunter2");
    assertThatThrownBy(() -> valid().password("hunter2"))
        .hasMessageContaining("password must be a reference")
        .hasMessageNotContaining("hunter2");
  }

  @Test
  void namesTheFieldAndTheLimit() {
    assertThatThrownBy(() -> valid().weight(0).build())
        .hasMessage("weight must be between 1 and 1000000 but was 0");
    assertThatThrownBy(() -> FleetOutbox.builder("x".repeat(25)).build())
        .hasMessageStartingWith("name must be 1 to 24 characters");
    assertThatThrownBy(() -> valid().jdbcUrl("jdbc:mysql://db/app").build())
        .hasMessageStartingWith("jdbcUrl must start with jdbc:postgresql:");
    assertThatThrownBy(() -> valid().slotName("s1").build())
        .hasMessage("slotName must be given only for kind wal but kind was polling");
    assertThatThrownBy(() -> valid().schema("Bad Schema").build())
        .hasMessageStartingWith("schema must be a lower-case identifier");
  }
}
