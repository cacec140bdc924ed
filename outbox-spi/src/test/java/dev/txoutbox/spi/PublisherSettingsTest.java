package dev.txoutbox.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What a provider reads from its settings, and what it refuses, on a hand-made provider. */
class PublisherSettingsTest {

  /** A provider with one setting of each type; create() is never called here. */
  private static final PublisherProvider PROVIDER =
      new PublisherProvider() {
        @Override
        public String name() {
          return "test";
        }

        @Override
        public List<PublisherSetting> settings() {
          return List.of(
              PublisherSetting.text("endpoint", "URL", "Where the broker is."),
              PublisherSetting.text("token", "TOKEN", "A secret.").masked(),
              PublisherSetting.duration("send-timeout", "30s", "How long one batch may take."),
              PublisherSetting.flag("strict", "Refuse unroutable events."),
              PublisherSetting.map("route", "TYPE=QUEUE", "A queue per aggregate type."));
        }

        @Override
        public Publisher create(PublisherSettings settings) {
          throw new UnsupportedOperationException();
        }
      };

  private static PublisherSettings of(Map<String, String> values) {
    return PublisherSettings.of(PROVIDER, "txoutbox-relay-test", values);
  }

  @Test
  void readsEachTypeAndFallsBackToTheDefault() {
    PublisherSettings s =
        of(
            Map.of(
                "endpoint", "http://broker:1",
                "strict", "TRUE",
                "route.order", "orders",
                "route.invoice", "invoices"));

    assertThat(s.publisher()).isEqualTo("test");
    assertThat(s.clientName()).isEqualTo("txoutbox-relay-test");
    assertThat(s.text("endpoint")).contains("http://broker:1");
    assertThat(s.text("token")).isEmpty();
    assertThat(s.duration("send-timeout")).contains(Duration.ofSeconds(30));
    assertThat(s.flag("strict")).isTrue();
    assertThat(s.map("route"))
        .containsExactly(entry("invoice", "invoices"), entry("order", "orders"));
  }

  @Test
  void aGivenDurationOverridesTheDefault() {
    assertThat(of(Map.of("send-timeout", "1.5s")).duration("send-timeout"))
        .contains(Duration.ofMillis(1500));
  }

  @Test
  void refusesAKeyNoSettingDeclaresAndListsTheSettings() {
    assertThatThrownBy(() -> of(Map.of("endpiont", "x")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "a setting of publisher test must be one of endpoint, token, send-timeout, strict,"
                + " route.* but was 'endpiont'");
  }

  @Test
  void aMapSettingTakesOnlyPrefixedKeysAndAPlainSettingNoPrefix() {
    assertThatThrownBy(() -> of(Map.of("route", "orders")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("but was 'route'");
    assertThatThrownBy(() -> of(Map.of("route.", "orders")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("but was 'route.'");
    assertThatThrownBy(() -> of(Map.of("endpoint.x", "y")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("but was 'endpoint.x'");
  }

  @Test
  void errorsNameTheFlag() {
    assertThatThrownBy(() -> of(Map.of()).required("endpoint"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "--endpoint (or endpoint in a settings file) must be given for publisher test but was"
                + " not");
    assertThatThrownBy(() -> of(Map.of("endpoint", "  ")).required("endpoint"))
        .hasMessageStartingWith("--endpoint ");
    assertThatThrownBy(() -> of(Map.of("send-timeout", "soon")).duration("send-timeout"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "--send-timeout must be a duration such as 500ms, 30s, 4m 5s, 12h, 7d or ISO-8601"
                + " (PT30M) but was 'soon'");
    assertThatThrownBy(() -> of(Map.of("strict", "yes")).flag("strict"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("--strict must be true or false but was 'yes'");
  }

  @Test
  void readingASettingTheProviderDidNotDeclareIsAProgrammingError() {
    assertThatThrownBy(() -> of(Map.of()).text("nope"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("setting 'nope' must be declared by publisher test but was not");
  }

  @Test
  void toStringMasksDeclaredSecretsAndSecretLookingKeys() {
    String shown =
        of(Map.of(
                "token", "t0ps3cret",
                "endpoint", "amqp://user:hunter2@broker:5672",
                "route.password", "p4ss"))
            .toString();

    assertThat(shown).doesNotContain("t0ps3cret", "hunter2", "p4ss").contains("token=****");
  }

  @Test
  void aSettingsNameIsLowerCaseWordsJoinedByDashes() {
    assertThatThrownBy(() -> PublisherSetting.text("sendTimeout", "X", "d"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "a setting's name must be lower case words joined by dashes but was 'sendTimeout'");
    assertThatThrownBy(() -> PublisherSetting.text("a.b", "X", "d"))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void inFlagsNamesTheBuilderOptionsAsFlagsAndMasksSecrets() {
    IllegalStateException e =
        new IllegalStateException(
            "uri amqp://u:hunter2@h must be reachable; sendTimeout must be positive but was 0ms;"
                + " a uri, a.sendTimeout.b stays");

    IllegalArgumentException shown =
        PublisherSettings.inFlags(e, Map.of("sendTimeout", "--send-timeout", "uri", "--amqp-uri"));

    assertThat(shown.getMessage())
        .startsWith("--amqp-uri amqp://u:****@h must be reachable; --send-timeout must be")
        .doesNotContain("hunter2")
        .endsWith("a uri, a.sendTimeout.b stays");
    assertThat(shown.getCause()).isSameAs(e);
  }

  private static Map.Entry<String, String> entry(String k, String v) {
    return Map.entry(k, v);
  }
}
